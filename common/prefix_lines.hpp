// Output labelling shared by the launcher (--label) and the leader (lines of spawned
// children forwarded to their parent's launcher).
#pragma once

#include <string>
#include <string_view>

namespace psched {

// `data` with `prefix` before each of its lines; a last line without its newline
// is prefixed too (output arrives in chunks that end wherever the rank's write did).
std::string PrefixLines(std::string_view prefix, std::string_view data);

}  // namespace psched
