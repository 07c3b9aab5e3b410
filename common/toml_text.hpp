// What psched checks of a TOML text before Debian's toml++ reads it, and how it shows
// toml++'s words in an error: the admin's config (config/parse) and djsb's (djsb/config).
#pragma once

#include <string>
#include <string_view>

namespace psched {

// Debian's toml++ (3.3) has undefined behaviour on many non-ASCII characters where it
// looks for whitespace (U+00A1-U+0499, U+2C5E-U+3057, U+FB26-U+FEFE: __builtin_unreachable
// in is_non_ascii_horizontal_whitespace; upstream issue marzer/tomlplusplus#295, fixed
// after 3.4), which config_fuzz found with UBSan. psched's keys and names are ASCII, so
// non-ASCII text belongs in comments: this finds it anywhere but on a comment line of its
// own (its first non-blank character '#'), where toml++ reads it only as a comment or
// inside a string. "" when the text is fine, else "<source>:LINE:COLUMN: <what>".
std::string NonAsciiOutsideCommentLines(std::string_view text, std::string_view source);

// Control characters as escapes (\n, \xNN): toml++ quotes the character it stopped at as
// it is, and a key or a string may hold a newline, yet each error is one line.
std::string Visible(std::string_view text);

}  // namespace psched
