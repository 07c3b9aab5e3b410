// Output labelling shared by the launcher (--label) and the leader (lines of spawned
// children forwarded to their parent's launcher).
#pragma once

#include <string>
#include <string_view>

namespace psched {

// `data` with `prefix` before each of its lines. A last line without its newline (a
// rank's final words, or a piece of a very long line) is prefixed and ended too: the next
// labelled line, maybe another rank's, must not be glued to it.
std::string PrefixLines(std::string_view prefix, std::string_view data);

}  // namespace psched
