#include "common/prefix_lines.hpp"

namespace psched {

std::string PrefixLines(std::string_view prefix, std::string_view data) {
  std::string text;
  size_t start = 0;
  while (start < data.size()) {
    size_t nl = data.find('\n', start);
    size_t end = nl == std::string_view::npos ? data.size() : nl + 1;
    text += prefix;
    text.append(data, start, end - start);
    if (nl == std::string_view::npos) text += '\n';
    start = end;
  }
  return text;
}

}  // namespace psched
