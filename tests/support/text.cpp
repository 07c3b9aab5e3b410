#include "tests/support/text.hpp"

#include <sstream>

namespace psched::testing {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

int CountLines(const std::string& text, const std::string& needle) {
  int n = 0;
  for (const auto& l : Lines(text)) n += l.find(needle) != std::string::npos;
  return n;
}

int CountOccurrences(const std::string& text, const std::string& needle) {
  if (needle.empty()) return 0;
  int n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

}  // namespace psched::testing
