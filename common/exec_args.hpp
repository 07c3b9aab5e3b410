// What exec wants, built from std::strings in the parent before fork/vfork: the child
// then only execs (it must not allocate after vfork, and should not after fork in a
// threaded daemon).
#pragma once

#include <string>
#include <vector>

namespace psched {

// The NULL-terminated array of pointers into `strings` that execve takes for argv and
// envp. Points into `strings`: keep them alive and unchanged until exec.
std::vector<char*> ExecArray(const std::vector<std::string>& strings);

// The environment `base` (NULL-terminated NAME=VALUE entries, as `environ`) with each
// NAME=VALUE of `overrides` replacing the entry of the same name or added at the end.
std::vector<std::string> EnvironmentWith(const char* const* base,
                                         const std::vector<std::string>& overrides);

// argv as one line, words separated by a space: what status displays show.
std::string CommandLine(const std::vector<std::string>& argv);

}  // namespace psched
