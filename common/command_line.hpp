// How every psched command reads its command line (CLI11): --help prints and exits 0; a
// usage error prints "COMMAND: what is wrong" and exits 2, as mpiexec, srun and most Unix
// tools do, so that scripts can tell a bad command line from a run that failed (CLI11's
// own codes, 105-109, differ by error kind and overlap nothing users know).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace psched {

inline constexpr int kExitUsage = 2;

// Number checks with a message people can read: CLI11's PositiveNumber and
// NonNegativeNumber print their range's 300-digit upper end.
inline CLI::Validator NumberAtLeast(double floor, bool inclusive) {
  const std::string bound = (inclusive ? ">= " : "> ") + CLI::detail::to_string(floor);
  return CLI::Validator(
      [floor, inclusive, bound](const std::string& text) {
        double value = 0;
        const bool ok =
            CLI::detail::lexical_cast(text, value) && (inclusive ? value >= floor : value > floor);
        return ok ? std::string() : "must be a number " + bound + ", got '" + text + "'";
      },
      bound);
}
inline CLI::Validator Positive() {
  return NumberAtLeast(0, false);
}
inline CLI::Validator NonNegative() {
  return NumberAtLeast(0, true);
}

// CLI11's usage line names only [OPTIONS] for an app that takes its command with
// prefix_command(); this one adds the operands ("COMMAND [ARGS...]").
class UsageWithOperands : public CLI::Formatter {
 public:
  explicit UsageWithOperands(std::string operands) : operands_(std::move(operands)) {}
  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string usage = CLI::Formatter::make_usage(app, std::move(name));
    const size_t end = usage.find_last_not_of('\n') + 1;
    return usage.substr(0, end) + " " + operands_ + usage.substr(end);
  }

 private:
  std::string operands_;
};

inline void SetUsageOperands(CLI::App& app, std::string operands) {
  app.formatter(std::make_shared<UsageWithOperands>(std::move(operands)));
}

// A footer callback's text for CLI11, which adds the help's final newline itself.
inline std::string WithoutFinalNewline(std::string text) {
  while (text.ends_with('\n')) text.pop_back();
  return text;
}

// Says what is wrong with the command line, the usual way; returns kExitUsage.
inline int UsageError(const char* command, const std::string& message) {
  std::fprintf(stderr, "%s: %s\nRun with --help for more information.\n", command, message.c_str());
  return kExitUsage;
}

// nullopt: parsed, carry on; else the code for main to return.
inline std::optional<int> ParseCommandLine(CLI::App& app, const char* command, int argc,
                                           const char* const* argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::Success& e) {  // --help, --help-all
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return UsageError(command, e.what());
  }
}

// The command a launcher runs, after its options (an app with prefix_command(), parsed):
// from the first word that is not an option, or everything after "--", as srun and salloc
// take it. nullopt with `*problem` set when there is none or it starts with an option
// that is not ours.
inline std::optional<std::vector<std::string>> CommandAfterOptions(const CLI::App& app,
                                                                   std::string* problem) {
  std::vector<std::string> command = app.remaining();
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  if (command.empty()) {
    *problem = "no command given";
    return std::nullopt;
  }
  if (command.front().starts_with("-")) {
    *problem = "unknown option '" + command.front() + "'";
    return std::nullopt;
  }
  return command;
}

}  // namespace psched
