// Finding or starting the pschedd network of the Slurm allocation psched-exec runs in.
//
// The first psched-exec of an allocation starts one pschedd per node as srun job steps
// (--overlap, detached: they outlive psched-exec), one step per tree level (see
// daemon_plan.hpp); later calls find the leader's launcher socket and reuse the daemons.
// The daemons end with the allocation: Slurm kills its steps when salloc's command exits.
//
// The leader runs on the allocation's first node. Its Unix socket is in SlurmRunDir on that
// host: the fast path for launchers there. Launchers on any other host (the salloc shell on
// a login host) connect over TCP to the address in the job's contact file,
// ~/.psched/JOBID/contact (daemon/net/contact_file.hpp), which the leader writes and removes.
//
// Use in the launcher (allocation_locator.cpp), after PSCHED_ALLOCATION and before the
// embedded default:
//   auto leader = slurm::FindSlurmLeader(slurm::CurrentEnvironment(), start_embedded,
//                                        {.pschedd = SelfDir() + "/pschedd"});
//   if (!leader) -> error (malformed SLURM_* values, daemons that did not start)
//   if (*leader) -> connect to (*leader)->socket
//   else         -> not in Slurm: the embedded default
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "launcher/slurm/slurm_allocation.hpp"

namespace psched::slurm {

struct SlurmDaemonOptions {
  std::string pschedd;                // the pschedd binary (required)
  std::string srun = "srun";          // srun to call
  std::string scontrol = "scontrol";  // asked for the nodes' addresses (NodeAddr)
  int fanout = 8;                     // children per daemon in the tree
  std::string allocator;              // passed to pschedd when not empty
  std::string policy;
  std::string topology;
  int start_timeout_seconds = 60;  // per tree level, and for the leader's "ready"
  // Told what a launcher waits for (psched-exec -v): another launcher starting the daemons.
  std::function<void(const std::string&)> progress;
};

// The run directory of this allocation's leader on this host:
// /tmp/psched-<uid>-slurm-<job id>. Its launcher socket is pschedd.sock inside.
std::string SlurmRunDir(const SlurmAllocation& allocation);

// Removes the run directories psched-<uid>-slurm-<job> in `parent` of this user's other
// jobs whose daemons are gone: nothing answers on the socket and `job_active(job)` is false
// (Slurm killed the daemons at the job's end, before they could clean up). Returns how many went.
// Called whenever a job starts its daemons.
int SweepEndedJobRunDirs(const std::string& parent, const std::string& current_job,
                         const std::function<bool(const std::string& job)>& job_active);

// Returns SlurmRunDir(allocation) once the allocation's daemons answer there: reuses
// running daemons, otherwise starts them (one starter at a time: the job's start lock in
// the shared home, ~/.psched/JOBID/start.lock (daemon/net/start_lock.hpp), makes concurrent
// first calls on any hosts share one daemon network). A call that finds the leader
// answering while another launcher still starts the daemons (holds the lock) waits for it,
// up to start_timeout_seconds per tree level and two more (for "ready" and what comes
// before the steps), instead of meeting a leader that refuses sessions until every node
// has joined. Errors name the node and point at the srun logs in the run directory on the
// starter's host (srun-level-K.err).
Result<std::string> EnsureSlurmDaemons(const SlurmAllocation& allocation,
                                       const SlurmDaemonOptions& options);

struct SlurmLeader {
  std::string job_id;
  std::string socket;   // the leader's launcher socket (on the first node)
  std::string contact;  // its contact file, for launchers elsewhere
};

// Connects to the leader: through its Unix socket when this host has it, else over TCP to
// the address in the contact file, authenticated with the secret there. `via` (when set)
// gets the socket's path or "HOST:PORT (TCP, from FILE)".
// Errors name the job and the file. When no daemons run (no socket, and no contact file or
// nothing answers at its address while the job runs) the error's errno is ENOENT or
// ECONNREFUSED: the caller may start them. A contact file with unsafe permissions, one the
// leader refuses (wrong secret) and one of an ended job (then removed) are refusals.
Result<int> ConnectSlurmLeader(const SlurmLeader& leader, std::string* via = nullptr);

// Removes the contact directories ~/.psched/JOB (in `root`) of this user's other jobs whose
// leader does not answer and `job_active(job)` is false. Returns how many went.
int SweepEndedJobContacts(const std::string& root, const std::string& current_job,
                          const std::function<bool(const std::string& job)>& job_active);

// The leader socket of the Slurm allocation described by `env`, std::nullopt outside
// Slurm. With `start`, starts the daemons when they do not answer (EnsureSlurmDaemons);
// without it (psched-ctl, and psched-exec's first try), only computes where they would be,
// after waiting for another launcher that is starting them (EnsureSlurmDaemons).
// A rank of a psched session outside Slurm carries SLURM_JOBID (set for Open MPI) and
// PSCHED_SESSION but no SLURM_JOB_ID: that is not a Slurm allocation.
// PSCHED_SLURM_FANOUT in `env`, when set, overrides options.fanout (tests use it to start
// deeper trees on four nodes).
Result<std::optional<SlurmLeader>> FindSlurmLeader(const Environment& env, bool start,
                                                   const SlurmDaemonOptions& options);

}  // namespace psched::slurm
