// The PMIx server host of one pschedd: registers sessions with the OpenPMIx
// server library so Open MPI ranks started without mpirun find their peers.
//
// Life of a session on a node: RegisterSession (namespace with the full key set
// Open MPI 4.1 needs, then the local clients) -> RankEnvironment per local rank,
// merged into the rank's environment before fork/exec -> DeregisterSession.
// Upcalls arrive on PMIx's progress thread; upcalls.cpp copies them into an
// UpcallQueue and this class handles them on the event-loop thread by calling
// PmixHostServices. Only one PmixServer may exist per process (PMIx is a
// process-wide library).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "pmix/host_services.hpp"
#include "pmix/session_layout.hpp"
#include "pmix/upcall_queue.hpp"

struct event_base;

namespace psched::pmix {

struct PmixServerOptions {
  std::string tmpdir;    // per daemon, must exist: PMIx rendezvous files and vader segments
  std::string hostname;  // this node's name as sessions see it
  int node_index = 0;    // this node's index in the allocation
  // Emulated nodes on one host: Open MPI's TCP BTL must use loopback (it skips 127/8).
  bool loopback_tcp = false;
  // Bound on every wait for a PMIx callback (register/deregister).
  std::chrono::milliseconds callback_timeout{10000};
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

// Where a set of procs lives, as far as this node's registered sessions tell.
struct ProcsLocation {
  std::vector<int64_t> sessions;             // ascending
  std::vector<int> nodes;                    // allocation nodes hosting them, ascending
  std::vector<std::string> unknown_nspaces;  // not registered on this node
};

class PmixServer {
 public:
  // Scrubs inherited PMIX_* variables (not PMIX_MCA_*) from this process's
  // environment, picks the hash GDS and native security unless set, then starts
  // the PMIx server library. `base` and `services` must outlive the server.
  static Result<std::unique_ptr<PmixServer>> Init(PmixServerOptions options, event_base* base,
                                                  PmixHostServices* services);
  ~PmixServer();  // PMIx_server_finalize
  PmixServer(const PmixServer&) = delete;
  PmixServer& operator=(const PmixServer&) = delete;

  // Registers the namespace and this node's clients; waits (bounded) for PMIx.
  Result<void> RegisterSession(const PmixSessionInfo& info);

  // Variables to add to the environment of a local rank of a registered session:
  // PMIx_server_setup_fork's plus the SLURM_* / OMPI_MCA_* ones Open MPI 4.1 needs.
  Result<EnvList> RankEnvironment(int64_t session, uint32_t rank);

  // Purges the namespace from PMIx and frees its node ranks. Unknown sessions are ignored.
  void DeregisterSession(int64_t session);

  // Answers a peer daemon's direct-modex request for a local rank
  // (PMIx_server_dmodex_request); `done` runs on the event-loop thread.
  void DirectModexLocal(ProcName proc, BlobDone done);

  ProcsLocation Locate(const std::vector<ProcName>& procs) const;

  const PmixServerOptions& options() const { return options_; }
  // The node ranks currently held on this node (unique across concurrent sessions).
  const std::set<uint32_t>& node_ranks_in_use() const { return node_ranks_in_use_; }
  UpcallQueue& queue() { return *queue_; }

  // Environment hygiene for ranks: true for inherited PMIx variables that must not
  // reach a rank or the server (PMIX_* except PMIX_MCA_*).
  static bool IsInheritedPmixVariable(std::string_view name);

 private:
  friend class Upcalls;
  struct SessionState {
    PmixSessionInfo info;
    std::map<uint32_t, uint32_t> node_rank;  // local global-rank -> node rank
  };

  PmixServer(PmixServerOptions options, PmixHostServices* services)
      : options_(std::move(options)), services_(services) {}

  const SessionState* FindByNspace(const std::string& nspace) const;
  std::vector<uint32_t> AcquireNodeRanks(size_t count);

  PmixServerOptions options_;
  PmixHostServices* services_;
  std::unique_ptr<UpcallQueue> queue_;
  bool initialized_ = false;
  std::map<int64_t, SessionState> sessions_;
  std::set<uint32_t> node_ranks_in_use_;
  uint32_t next_tool_id_ = 0;
};

}  // namespace psched::pmix
