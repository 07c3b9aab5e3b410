// The admin's TOML config (config/config.hpp: toml++'s parse, then psched's checks of
// every key against the policy, allocator, priority and MPI wire-up names and the
// limits) on any text: a config psched can run with, or errors that each name the file
// and where; never a crash, a sanitizer report or an exception. What `psched-config
// show` prints of a config read back is the same config.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "config/show.hpp"
#include "pmi/wireup.hpp"
#include "policies/policy_registry.hpp"
#include "scheduler/allocator_registry.hpp"
#include "scheduler/priorities/priority_registry.hpp"

namespace {

using psched::config::Config;

bool Listed(const std::vector<std::string>& names, const std::string& name) {
  for (const std::string& n : names)
    if (n == name) return true;
  return false;
}

// Every name known, the default allowed, every number finite and the plan outlasting a
// suspend's confirmation: what the leader and the nodes assume of a config.
bool Runnable(const Config& c) {
  if (!Listed(psched::policies::PolicyNames(), c.default_policy)) return false;
  if (!c.allowed_policies.empty() && !Listed(c.allowed_policies, c.default_policy)) return false;
  for (const std::string& p : c.allowed_policies)
    if (!Listed(psched::policies::PolicyNames(), p)) return false;
  if (!Listed(psched::sched::AllocatorNames(), c.default_allocator)) return false;
  if (!c.allowed_allocators.empty() && !Listed(c.allowed_allocators, c.default_allocator))
    return false;
  for (const std::string& a : c.allowed_allocators)
    if (!Listed(psched::sched::AllocatorNames(), a)) return false;
  if (!Listed(psched::sched::prio::PriorityNames(), c.priority.name)) return false;
  if (!Listed(psched::pmi::WireUpNames(), c.default_mpi)) return false;
  for (double s : {c.plan_timeout_s, c.suspend_confirm_timeout_s, c.round_interval_s, c.kill_wait_s,
                   c.embedded_idle_exit_s, c.policy_options.surpass_grace_s,
                   c.policy_options.max_overbook_factor, c.priority.aging_step_s})
    if (!std::isfinite(s) || s < 0) return false;
  return c.plan_timeout_s > c.suspend_confirm_timeout_s;
}

// "fuzz.toml:LINE:COLUMN: what" or "fuzz.toml: what", one a line.
bool NamesTheFile(const std::string& message) {
  std::istringstream lines(message);
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count)
    if (line.rfind("fuzz.toml:", 0) != 0 || line.size() <= 11) return false;
  return count > 0;
}

// The text after the first line (which names the files read).
std::string Body(const std::string& shown) {
  return shown.substr(shown.find('\n') + 1);
}

// Says what broke (the input is libFuzzer's to print), then ends the run as a finding.
[[noreturn]] void Broken(const char* what, const std::string& text) {
  std::fprintf(stderr, "config_fuzz: %s:\n%s\n", what, text.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = psched::config::ParseConfig(text, "fuzz.toml");
  if (!config) {
    if (!NamesTheFile(config.error().message()))
      Broken("an error that does not name the file", config.error().message());
    return 0;
  }
  const std::string shown = psched::config::ToToml(*config);
  if (!Runnable(*config)) Broken("a config psched cannot run with", shown);
  auto again = psched::config::ParseConfig(shown, "shown.toml");
  if (!again) Broken(("show's text is refused: " + again.error().message()).c_str(), shown);
  if (Body(psched::config::ToToml(*again)) != Body(shown))
    Broken("show's text reads back as another config", shown);
  return 0;
}
