// How every psched command reads its command line (CLI11): --help prints and exits 0; a
// usage error prints "COMMAND: what is wrong" and exits 2, as mpiexec, srun and most Unix
// tools do, so that scripts can tell a bad command line from a run that failed (CLI11's
// own codes, 105-109, differ by error kind and overlap nothing users know).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <string>

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

// nullopt: parsed, carry on; else the code for main to return.
inline std::optional<int> ParseCommandLine(CLI::App& app, const char* command, int argc,
                                           const char* const* argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::Success& e) {  // --help, --help-all
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: %s\nRun with --help for more information.\n", command, e.what());
    return kExitUsage;
  }
}

}  // namespace psched
