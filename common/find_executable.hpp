// Finding a command as execvp does, but on a PATH and in a directory given by the
// caller: a rank's program is looked up on the rank's PATH from the rank's working
// directory (as srun's slurmstepd and Open MPI's daemons do), not on the PATH of
// whoever started the daemon.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace psched {

// What execve should run for `command`: a command with a '/' as it is (relative to
// `cwd`), else the first `dir/command` of the ':'-separated `path` that is an executable
// regular file (an empty entry is "."). Relative results stay relative: they hold once the
// child has changed to `cwd` (empty: this process's directory). nullopt if none.
std::optional<std::string> FindExecutable(const std::string& command, std::string_view path,
                                          const std::string& cwd);

// PATH's value in `env` (NAME=VALUE entries), or execvp's default when it is not set.
std::string SearchPathOf(const std::vector<std::string>& env);

}  // namespace psched
