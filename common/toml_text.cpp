#include "common/toml_text.hpp"

namespace psched {

std::string NonAsciiOutsideCommentLines(std::string_view text, std::string_view source) {
  int line = 1;
  int column = 1;             // in characters, as toml++ counts them
  bool comment_line = false;  // the line's first non-blank character is '#'
  bool blank_so_far = true;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      ++line;
      column = 1;
      comment_line = false;
      blank_so_far = true;
      continue;
    }
    if (blank_so_far && c != ' ' && c != '\t') {
      blank_so_far = false;
      comment_line = c == '#';
    }
    if (byte >= 0x80 && !comment_line) {
      return std::string(source) + ":" + std::to_string(line) + ":" + std::to_string(column) +
             ": a non-ASCII character outside a comment line: psched's keys and names are "
             "ASCII; write other text in a comment on a line of its own";
    }
    if ((byte & 0xc0) != 0x80) ++column;  // not a UTF-8 continuation byte
  }
  return "";
}

std::string Visible(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (byte < 0x20 || byte == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xf]};
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace psched
