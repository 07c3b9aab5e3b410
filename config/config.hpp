// The admin's configuration of psched: which co-scheduling policies users may
// pick and how they behave, which allocators and priority module run.
//
// Read from TOML: /etc/psched/psched.toml, then $PSCHED_CONF (later files override
// earlier ones key by key). Parsing is pure (a string in, a Config or a
// line-numbered error out); only load.cpp touches files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "policies/policy.hpp"
#include "scheduler/config.hpp"

namespace psched::config {

inline constexpr std::string_view kSystemConfigPath = "/etc/psched/psched.toml";
inline constexpr std::string_view kConfigEnv = "PSCHED_CONF";

// Defaults of the co-scheduling plan timeouts ([policy] plan_timeout_s and
// suspend_confirm_timeout_s). A node confirms a suspend within 5 s or fails it; the
// leader's 10 s leave room for a loaded machine before a silent node is declared failed.
inline constexpr double kDefaultPlanTimeoutS = 10;
inline constexpr double kDefaultSuspendConfirmTimeoutS = 5;
inline constexpr double kDefaultEmbeddedIdleExitS = 600;
// Seconds between SIGTERM and SIGKILL when a session is ended ([launch] kill_wait_s):
// mpirun's (Open MPI's odls_base_sigkill_timeout), shorter than Slurm's KillWait.
inline constexpr double kDefaultKillWaitS = 1;
// The longest: psched-exec --kill-wait beyond it is refused, a node's order held to it.
inline constexpr double kMaxKillWaitS = 3600;

// How pschedd suspends a session's processes on each node (surpass, psched-ctl
// suspend): SIGSTOP to each process, or the session's cgroup freezer (v2
// cgroup.freeze, else v1 freezer.state), which also holds the processes a rank forks.
enum class SuspendMethod { kSignal, kFreezer };

struct Config {
  // [policy]
  std::string default_policy = "wait";
  std::vector<std::string> allowed_policies;  // empty in a default Config: all of them
  bool spread_allowed = true;
  policies::PolicyOptions policy_options;
  SuspendMethod suspend = SuspendMethod::kSignal;
  // How long the leader waits for every node to answer its orders of a co-scheduling
  // plan (and again for the rollback's) before it rolls the plan back; a surpass grace
  // is added on top (daemon/leader/plan_executor.hpp).
  double plan_timeout_s = kDefaultPlanTimeoutS;
  // How long a node waits for a session's processes to show stopped (or its cgroup
  // frozen) before it fails the suspend; the leader sends it with each suspend order,
  // as it does the surpass grace. Must be shorter than plan_timeout_s, so the leader
  // hears which process did not stop rather than "node did not answer".
  double suspend_confirm_timeout_s = kDefaultSuspendConfirmTimeoutS;
  // [allocator]
  std::string default_allocator = "compact";
  std::vector<std::string> allowed_allocators;  // empty: all of them
  // The leader's periodic scheduling round (besides arrivals and ends), in which
  // the window allocators (auction, ipwindow) decide over the waiting sessions.
  double round_interval_s = 10;
  sched::AllocatorConfig allocators;
  // [priority]
  sched::PriorityConfig priority;
  // [launch] mpi: the wire-up of sessions whose launcher names none (pmi/wireup.hpp).
  std::string default_mpi = "auto";
  // When a rank fails (or the session is killed, its launcher gone, MPI_Abort) the other
  // ranks get SIGTERM, and SIGKILL this long after (psched-exec --kill-wait overrides).
  double kill_wait_s = kDefaultKillWaitS;
  // [daemon]
  // The daemon psched-exec starts on first use outside an allocation exits after this
  // long with no session and no client (0: never), as nobody is told it runs.
  double embedded_idle_exit_s = kDefaultEmbeddedIdleExitS;
  // Files this config was read from, in order (for `show` and error messages).
  std::vector<std::string> sources;
};

// The defaults: every policy and allocator allowed, wait and compact by default.
Config DefaultConfig();

// Parses TOML `text` on top of `base`: keys present override, others keep base's
// values. Errors name `source` and the line: "psched.toml:7:1: unknown key 'polcy'".
// Several problems are reported together, one per line.
Result<Config> ParseConfig(std::string_view text, std::string_view source,
                           const Config& base = DefaultConfig());

}  // namespace psched::config
