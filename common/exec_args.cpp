#include "common/exec_args.hpp"

#include <algorithm>
#include <string_view>

namespace psched {

std::vector<char*> ExecArray(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  // exec's prototype predates const; it does not write through these.
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

namespace {

std::string_view NameOf(std::string_view entry) {
  return entry.substr(0, entry.find('='));
}

}  // namespace

std::vector<std::string> EnvironmentWith(const char* const* base,
                                         const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (const char* const* e = base; e != nullptr && *e != nullptr; ++e) {
    std::string_view name = NameOf(*e);
    bool overridden =
        std::ranges::any_of(overrides, [&](const std::string& o) { return NameOf(o) == name; });
    if (!overridden) env.emplace_back(*e);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& word : argv) {
    if (!line.empty()) line += ' ';
    line += word;
  }
  return line;
}

}  // namespace psched
