// Reading captured output in tests.
#pragma once

#include <string>
#include <vector>

namespace psched::testing {

std::vector<std::string> Lines(const std::string& text);             // without the '\n'
int CountLines(const std::string& text, const std::string& needle);  // lines containing it
int CountOccurrences(const std::string& text, const std::string& needle);

}  // namespace psched::testing
