// psched-config: check an admin's configuration file, show the effective
// configuration, or resolve what a user would get for --policy/--spread.
#include <CLI/CLI.hpp>
#include <iostream>

#include "common/command_line.hpp"
#include "common/guarded_main.hpp"
#include "config/load.hpp"
#include "config/resolve.hpp"
#include "config/show.hpp"

namespace {

using psched::config::Config;

// The effective config: the given files in order, or /etc/psched/psched.toml then $PSCHED_CONF.
psched::Result<Config> Effective(const std::vector<std::string>& files) {
  if (files.empty())
    return psched::config::LoadConfig(psched::config::ConfigPathsFromEnvironment());
  Config config = psched::config::DefaultConfig();
  for (const std::string& f : files) {
    auto next = psched::config::LoadConfigFile(f, config);
    if (!next) return next;
    config = std::move(*next);
  }
  return config;
}

int RunCommand(int argc, char** argv) {
  CLI::App app{
      "Check and show psched's admin configuration (TOML: /etc/psched/psched.toml, then "
      "$PSCHED_CONF)",
      "psched-config"};
  app.require_subcommand(1);

  std::vector<std::string> check_files;
  CLI::App* check = app.add_subcommand("check", "Validate config files; line-numbered errors");
  check->add_option("FILE", check_files, "TOML files to validate (each on its own)")->required();

  std::vector<std::string> show_files;
  CLI::App* show = app.add_subcommand("show", "Print the effective configuration as TOML");
  show->add_option("-f,--file", show_files,
                   "Read these files in order instead of /etc/psched/psched.toml and $PSCHED_CONF");

  std::vector<std::string> resolve_files;
  std::string policy, allocator;
  bool spread = false;
  CLI::App* resolve = app.add_subcommand(
      "resolve", "Print the policy and allocator psched-exec would use for these options");
  resolve->add_option("-f,--file", resolve_files, "Config files to read, in order");
  resolve->add_option("--policy", policy, "Requested policy (default: the configured one)");
  resolve->add_flag("--spread", spread, "Requested spread option");
  resolve->add_option("--allocator", allocator, "Requested allocator");

  app.footer(
      "Examples:\n"
      "  psched-config check /etc/psched/psched.toml    # before installing an edited file\n"
      "  psched-config show                             # what the daemons will use\n"
      "  psched-config resolve --policy overbook --spread\n"
      "With no config file, show prints every setting's built-in default.\n\n"
      "Exit status: 0 valid (check) or printed; 1 a file is invalid or unreadable (each error\n"
      "names file:line); 2 a bad option, or a policy or allocator that resolve cannot name.");
  if (auto code = psched::ParseCommandLine(app, "psched-config", argc, argv)) return *code;

  if (check->parsed()) {
    int failed = 0;
    for (const std::string& f : check_files) {
      auto config = psched::config::LoadConfigFile(f);
      if (config) {
        std::cout << f << ": ok\n";
      } else {
        std::cerr << config.error().ToString() << "\n";
        ++failed;
      }
    }
    return failed == 0 ? 0 : 1;
  }
  if (show->parsed()) {
    auto config = Effective(show_files);
    if (!config) {
      std::cerr << "psched-config: " << config.error().ToString() << "\n";
      return 1;
    }
    std::cout << psched::config::ToToml(*config);
    return 0;
  }
  auto config = Effective(resolve_files);
  if (!config) {
    std::cerr << "psched-config: " << config.error().ToString() << "\n";
    return 1;
  }
  auto chosen = psched::config::ResolvePolicy(*config, policy, spread);
  if (!chosen) {
    std::cerr << "psched-config: " << chosen.error().ToString() << "\n";
    return 2;
  }
  auto alloc = psched::config::ResolveAllocator(*config, allocator);
  if (!alloc) {
    std::cerr << "psched-config: " << alloc.error().ToString() << "\n";
    return 2;
  }
  std::cout << "policy " << chosen->name << (chosen->spread ? " spread" : "") << "\nallocator "
            << *alloc << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return psched::GuardedMain("psched-config", [&] { return RunCommand(argc, argv); });
}
