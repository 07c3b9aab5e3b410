#include "launcher/exec_options.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <tuple>

#include "common/command_line.hpp"
#include "common/find_executable.hpp"
#include "config/config.hpp"
#include "launcher/help_text.hpp"
#include "pmi/wireup.hpp"

namespace psched::launcher {

namespace {

Error NotADuration(const std::string& text) {
  return Error(ErrorCode::kInvalidArgument,
               "--time '" + text + "' is not a duration (seconds, MM:SS or HH:MM:SS)");
}

// mpiexec's "-np N" (mpirun -np 4 is its most common spelling) becomes "--np N", which
// CLI11 would read as "-n p". Only psched-exec's own options are looked at: the
// command's arguments (prog -np 2) are the command's.
std::vector<std::string> WithMpiexecSpellings(const CLI::App& app, int argc,
                                              const char* const* argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--" || arg.size() < 2 || arg[0] != '-') break;  // the command starts here
    if (arg == "-np") {
      args[i] = "--np";
      ++i;  // its value
      continue;
    }
    const bool is_long = arg.starts_with("--");
    const std::string name = is_long ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
    const bool value_attached = is_long ? arg.find('=') != std::string::npos : arg.size() > 2;
    const CLI::Option* option = app.get_option_no_throw(name);
    if (option != nullptr && option->get_expected_min() > 0 && !value_attached) ++i;
  }
  return args;
}

}  // namespace

Result<int> ParseCount(const std::string& flag, const std::string& text) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 1) {
    return Fail(ErrorCode::kInvalidArgument,
                flag + " needs a positive integer, got '" + text + "'");
  }
  return value;
}

Result<double> ParseDuration(const std::string& text) {
  std::vector<double> parts;
  std::stringstream in(text);
  std::string field;
  while (std::getline(in, field, ':')) {
    char* end = nullptr;
    double v = std::strtod(field.c_str(), &end);
    // strtod takes "nan" and "inf": an estimate must be a number the queue can order.
    if (field.empty() || *end != '\0' || !std::isfinite(v) || v < 0)
      return Fail(NotADuration(text));
    parts.push_back(v);
  }
  if (parts.empty() || parts.size() > 3) return Fail(NotADuration(text));
  double seconds = 0;
  for (double p : parts) seconds = seconds * 60 + p;
  if (!std::isfinite(seconds)) return Fail(NotADuration(text));
  return seconds;
}

ParsedExec ParseExecOptions(int argc, const char* const* argv) {
  ParsedExec out;
  ExecOptions& o = out.options;
  CLI::App app{"psched-exec: run an MPI session (N ranks x T threads) in the current allocation",
               "psched-exec"};
  std::string time_text, kill_wait_text;
  // Counts are read as text and converted here: CLI11 says "Could not convert: --np = abc".
  std::string ranks_text, nodes_text, ppn_text, cpus_text;
  app.add_option("-n,--np", ranks_text, "number of ranks (default 1); mpiexec's -np N works too")
      ->type_name("N");
  app.add_option("-N,--nodes", nodes_text, "spread the ranks over exactly this many nodes")
      ->type_name("N");
  app.add_option("--ppn", ppn_text, "ranks per node")->type_name("N");
  app.add_option("-c,--cpus-per-rank", cpus_text,
                 "threads per rank: pins this many PUs per rank and sets OMP_NUM_THREADS")
      ->type_name("N");
  app.add_flag("--spread", o.spread, "spread ranks over as many nodes as possible");
  app.add_option("-x", o.exports, "export VAR (from here) or VAR=value to the ranks")
      ->allow_extra_args(false)
      ->type_name("VAR[=VALUE]");
  app.add_option("--chdir", o.chdir, "working directory of the ranks")->type_name("DIR");
  app.add_flag("--label", o.label, "prefix output lines with [rank]");
  app.add_flag("--no-pty", o.no_pty,
               "ranks' stdout is a pipe (their stdio buffers by block) even when this "
               "command's stdout is a terminal; by default it is then a pseudo-terminal, as "
               "under mpirun, so their output is line-buffered");
  app.add_option("--time", time_text, "runtime estimate: seconds, MM:SS or HH:MM:SS")
      ->type_name("DURATION");
  app.add_option("--policy", o.policy,
                 "what to do when the session does not fit on the free slots (below)")
      ->type_name("NAME");
  app.add_option("--allocator", o.allocator, "how the ranks are laid out on the slots (below)")
      ->type_name("NAME");
  app.add_option("--mpi", o.mpi,
                 "MPI wire-up: auto (PMIx, PMI-1 and PMI-2: Open MPI, MPICH, Intel MPI), pmix, "
                 "pmi1, pmi2, none (default: the admin's [launch] mpi, else auto)")
      ->type_name("NAME");
  app.add_option("--kill-wait", kill_wait_text,
                 "when a rank fails or the session is killed, the other ranks get SIGTERM and "
                 "SIGKILL this many seconds later (0: at once; default: the admin's [launch] "
                 "kill_wait_s, else 1, as mpirun)")
      ->type_name("SECONDS");
  app.add_flag("-q,--quiet", o.quiet, "only the ranks' output and errors");
  app.add_flag("-v,--verbose", o.verbose, "say what happens");
  app.prefix_command();
  SetUsageOperands(app, "COMMAND [ARGS...]");
  // Built when --help prints it: the admin's config is read then, not on every launch.
  app.footer([] {
    return "COMMAND [ARGS...]: what every rank runs, after the options (or after --).\n\n" +
           PolicyAndAllocatorHelpFromConfig() + "\n" + WithoutFinalNewline(AllocationHelp());
  });
  const std::vector<std::string> args = WithMpiexecSpellings(app, argc, argv);
  std::vector<const char*> arg_ptrs;
  arg_ptrs.reserve(args.size());
  for (const std::string& a : args) arg_ptrs.push_back(a.c_str());
  if (auto code = ParseCommandLine(app, "psched-exec", argc, arg_ptrs.data())) {
    out.exit = true;
    out.exit_code = *code;
    return out;
  }
  auto fail = [&out](const std::string& message) {
    out.exit = true;
    out.exit_code = UsageError("psched-exec", message);
    return out;
  };
  std::string problem;
  auto command = CommandAfterOptions(app, &problem);
  if (!command) return fail(problem);
  o.command = std::move(*command);
  for (auto [flag, text, value] :
       {std::tuple{"-n", &ranks_text, &o.ranks}, std::tuple{"-N", &nodes_text, &o.nodes},
        std::tuple{"--ppn", &ppn_text, &o.ppn}, std::tuple{"-c", &cpus_text, &o.cpus_per_rank}}) {
    if (text->empty()) continue;  // not given: the default
    auto count = ParseCount(flag, *text);
    if (!count) return fail(count.error().message());
    *value = *count;
  }
  if (o.nodes > o.ranks) {
    return fail("-N " + std::to_string(o.nodes) + " needs at least as many ranks (-n " +
                std::to_string(o.ranks) + ")");
  }
  if (auto wire_up = pmi::ParseWireUp(o.mpi); !wire_up)
    return fail("--mpi: " + wire_up.error().message());
  if (!time_text.empty()) {
    auto t = ParseDuration(time_text);
    if (!t) return fail(t.error().message());
    o.time_s = *t;
  }
  if (!kill_wait_text.empty()) {
    auto wait = ParseKillWait(kill_wait_text);
    if (!wait) return fail(wait.error().message());
    o.kill_wait_s = *wait;
  }
  return out;
}

Result<double> ParseKillWait(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0 || v > config::kMaxKillWaitS) {
    return Fail(ErrorCode::kInvalidArgument,
                "--kill-wait needs seconds between 0 and 3600, got '" + text + "'");
  }
  return v;
}

Result<std::string> RanksDirectory(const std::string& chdir) {
  if (chdir.starts_with('/')) return chdir;
  std::error_code ec;
  const std::filesystem::path here = std::filesystem::current_path(ec);
  // Sent empty, the ranks ran wherever the daemon happened to be: say so instead.
  if (ec) {
    return Fail(ErrorCode::kInvalidArgument,
                "cannot name the ranks' working directory: the current directory is not "
                "accessible (getcwd: " +
                    ec.message() + "); cd to one that exists or give --chdir DIR");
  }
  return (chdir.empty() ? here : here / chdir).string();
}

Result<std::vector<std::string>> RankEnvironment(const std::vector<std::string>& exports,
                                                 char** environ) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  for (const std::string& x : exports) {
    auto eq = x.find('=');
    std::string name = x.substr(0, eq);
    if (name.empty()) return Fail(ErrorCode::kInvalidArgument, "-x '" + x + "' has no name");
    std::string entry = x;
    if (eq == std::string::npos) {
      const char* value = std::getenv(name.c_str());
      if (value == nullptr)
        return Fail(ErrorCode::kInvalidArgument, "-x " + name + ": " + name + " is not set here");
      entry = name + "=" + value;
    }
    std::erase_if(env, [&](const std::string& e) { return e.starts_with(name + "="); });
    env.push_back(entry);
  }
  return env;
}

Result<std::string> ResolveExecutable(const std::string& command, const std::string& chdir,
                                      const std::vector<std::string>& env) {
  const std::string path = SearchPathOf(env);
  if (auto program = FindExecutable(command, path, chdir)) return *program;
  if (command.find('/') != std::string::npos) {
    // Which of the three: a directory or a file without x read as "not found" alike.
    const std::filesystem::path where = command.starts_with('/')
                                            ? std::filesystem::path(command)
                                            : std::filesystem::path(chdir) / command;
    std::error_code ec;
    const auto status = std::filesystem::status(where, ec);
    if (std::filesystem::is_directory(status))
      return Fail(ErrorCode::kInvalidArgument, "'" + command + "' is a directory, not a program");
    if (std::filesystem::exists(status)) {
      return Fail(ErrorCode::kPermissionDenied,
                  "'" + command + "' is not an executable file (no execute permission?)");
    }
    return Fail(ErrorCode::kNotFound, "executable '" + command + "' not found");
  }
  return Fail(ErrorCode::kNotFound,
              "executable '" + command + "' not found in PATH (the ranks' PATH: " + path + ")");
}

}  // namespace psched::launcher
