#include "launcher/help_text.hpp"

#include <algorithm>

#include "config/load.hpp"
#include "policies/policy_registry.hpp"
#include "scheduler/allocator_registry.hpp"

namespace psched::launcher {

namespace {

constexpr size_t kHelpWidth = 88;

// `lead` then `text`, its words wrapped at kHelpWidth under the first one.
std::string Wrapped(const std::string& lead, const std::string& text) {
  std::string out = lead, line_start_pad(lead.size(), ' ');
  size_t column = lead.size();
  bool first = true;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(pos, end - pos);
    if (!first && column + 1 + word.size() > kHelpWidth) {
      out += "\n" + line_start_pad;
      column = line_start_pad.size();
    } else if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
    pos = end + 1;
  }
  return out + "\n";
}

}  // namespace

std::string PolicyAndAllocatorHelp(const Result<config::Config>& config) {
  const std::vector<std::string>& names = policies::PolicyNames();
  size_t width = 0;
  for (const std::string& n : names) width = std::max(width, n.size());
  std::string out =
      "Policies (--policy NAME), for a session that does not fit on the free slots:\n";
  for (const std::string& n : names) {
    out += Wrapped("  " + n + std::string(width + 2 - n.size(), ' '),
                   std::string(policies::PolicySummary(n)));
  }
  if (config) {
    out += "  Default here: " + config->default_policy +
           " (the admin's config: " + std::string(config::kSystemConfigPath) + ", then $" +
           std::string(config::kConfigEnv) + ";\n  see psched-config show)\n";
  } else {
    out += "  Default: cannot be told, " + config.error().message() + "\n";
  }
  out += "Allocators (--allocator NAME), how a session's ranks are laid out on free slots:\n  " +
         policies::JoinNames(sched::AllocatorNames());
  if (config) out += "; default here: " + config->default_allocator;
  return out + "\n";
}

std::string PolicyAndAllocatorHelpFromConfig() {
  return PolicyAndAllocatorHelp(config::LoadConfig(config::ConfigPathsFromEnvironment()));
}

std::string AllocationHelp() {
  return "Where the session runs: in the allocation psched-exec finds, in this order:\n"
         "  1. $PSCHED_ALLOCATION, set by psched-alloc inside its allocation;\n"
         "  2. the Slurm job of $SLURM_JOB_ID (salloc, sbatch): psched daemons start on its\n"
         "     nodes with srun on first use and serve every psched-exec of the job;\n"
         "  3. else this machine alone: a daemon started on first use (psched-exec -v says\n"
         "     so) that exits when idle (after 10 minutes unless the config's\n"
         "     daemon.embedded_idle_exit_s says otherwise), its socket in\n"
         "     $XDG_RUNTIME_DIR/psched or /tmp/psched-UID.\n"
         "Every rank gets PSCHED_RANK, PSCHED_SIZE, PSCHED_LOCAL_RANK, PSCHED_LOCAL_SIZE,\n"
         "PSCHED_NODE, PSCHED_SESSION and OMP_NUM_THREADS (-c), with the PMIx variables MPI\n"
         "libraries need; see and steer sessions with psched-ctl.\n";
}

}  // namespace psched::launcher
