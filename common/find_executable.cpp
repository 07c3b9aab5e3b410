#include "common/find_executable.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace psched {
namespace {

bool IsExecutableFile(const std::string& path, const std::string& cwd) {
  const std::string where = path.front() == '/' || cwd.empty() ? path : cwd + "/" + path;
  struct stat st {};
  return stat(where.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(where.c_str(), X_OK) == 0;
}

}  // namespace

std::optional<std::string> FindExecutable(const std::string& command, std::string_view path,
                                          const std::string& cwd) {
  if (command.empty()) return std::nullopt;
  if (command.find('/') != std::string::npos) {
    if (IsExecutableFile(command, cwd)) return command;
    return std::nullopt;
  }
  while (true) {
    const size_t colon = path.find(':');
    std::string_view dir = path.substr(0, colon);
    std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + command;
    if (IsExecutableFile(candidate, cwd)) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    path.remove_prefix(colon + 1);
  }
}

std::string SearchPathOf(const std::vector<std::string>& env) {
  for (const std::string& e : env)
    if (e.starts_with("PATH=")) return e.substr(5);
  return "/bin:/usr/bin";  // glibc's execvp default
}

}  // namespace psched
