// The PMIx server host of one pschedd: registers sessions with the OpenPMIx
// server library so Open MPI ranks started without mpirun find their peers.
//
// Life of a session on a node: RegisterSession (namespace with the full key set
// Open MPI 4.1 needs, then the local clients; asynchronous, answered on the event
// loop, bounded by a timeout) -> RankEnvironment per local rank,
// merged into the rank's environment before fork/exec -> DeregisterSession.
// Upcalls arrive on PMIx's progress thread; upcalls.cpp copies them into an
// UpcallQueue and this class handles them on the event-loop thread by calling
// PmixHostServices. Only one PmixServer may exist per process (PMIx is a
// process-wide library).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
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
struct pmix_data_array;
typedef struct pmix_data_array pmix_data_array_t;
typedef int pmix_status_t;

namespace psched::pmix {

struct PmixServerOptions {
  std::string tmpdir;    // per daemon, must exist: PMIx rendezvous files and vader segments
  std::string hostname;  // this node's name as sessions see it
  int node_index = 0;    // this node's index in the allocation
  // Emulated nodes on one host: Open MPI's TCP BTL must use loopback (it skips 127/8).
  bool loopback_tcp = false;
  // No fabric on this node (NodeHasFabric): suggest OMPI_MCA_pml=ob1 so Open MPI
  // does not spend most of MPI_Init probing MTLs and UCX it cannot use, and
  // OMPI_MCA_osc=sm,rdma,ucx,pt2pt so that windows across nodes have a component: over
  // TCP osc/rdma declines (the TCP BTL has no get nor atomics) and Debian's
  // openmpi-mca-params.conf leaves out the other two (osc = ^ucx,pt2pt), so
  // MPI_Win_allocate over two nodes failed with MPI_ERR_WIN, as it would under mpirun
  // across two such hosts. ucx serves MPI_THREAD_MULTIPLE (mpi4py asks for it; pt2pt
  // refuses it), pt2pt is the fallback. A user's own OMPI_MCA_pml or OMPI_MCA_osc wins
  // (they are defaults, see EnvDefaults).
  bool skip_fabric_probe = false;
  // Bound on the wait for PMIx to answer a session's registration.
  std::chrono::milliseconds callback_timeout{10000};
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

// Where a set of procs lives, as far as this node's registered sessions tell.
struct ProcsLocation {
  std::vector<int64_t> sessions;             // ascending
  std::vector<int> nodes;                    // allocation nodes hosting them, ascending
  std::vector<std::string> unknown_nspaces;  // not registered on this node
};

// Ranks of a session that failed (a non-zero exit, a signal, an abort), as told to the
// sessions connected to it.
struct ProcsFailure {
  std::string nspace;           // the failed session's
  std::vector<uint32_t> ranks;  // the ranks seen failing, at least one
  std::string why;              // for people: "rank 0 exited with status 3"
};

// Taking over PMIx's event base ends PMIx's progress thread with
// event_base_loopexit(base, NULL), which activates a one-shot "exit" event. When the
// thread leaves its loop before it runs that event, the event stays active on the base
// and ends the first loop the new owner runs: a daemon then exited at once, with status
// 0 and nothing in its log. One non-blocking pass runs such a leftover now; the exit
// flag it sets is cleared when the next loop starts.
void RunOutLeftoverLoopExit(event_base* base);

class PmixServer {
 public:
  // Scrubs inherited PMIX_* variables (not PMIX_MCA_*) from this process's
  // environment, picks the hash GDS and native security unless set, then starts
  // the PMIx server library. `base` and `services` must outlive the server.
  //
  // With `base` null the server runs PMIx on the caller's thread: it stops PMIx's
  // progress thread after init and hands its event base out (base()) for the caller
  // to run as its only loop. Upcalls, PMIx's callbacks and the host's replies then
  // never cross threads: a fence costs each daemon two wake-ups fewer. `services`
  // may be null then until SetServices(), which must come before the loop runs, and
  // the server must be destroyed after every other event on that base is freed:
  // PMIx's thread runs the base again while PMIx_server_finalize ends the library.
  static Result<std::unique_ptr<PmixServer>> Init(PmixServerOptions options, event_base* base,
                                                  PmixHostServices* services);
  ~PmixServer();  // PMIx_server_finalize
  PmixServer(const PmixServer&) = delete;
  PmixServer& operator=(const PmixServer&) = delete;

  // Registers the namespace and this node's clients without blocking: `done` runs on
  // the event-loop thread (or at once for bad input) when PMIx has accepted them all,
  // or with an error, kTimeout when PMIx has not answered within
  // options.callback_timeout (that session only; a late answer purges its namespace).
  using RegisterDone = std::function<void(Result<void>)>;
  void RegisterSession(const PmixSessionInfo& info, RegisterDone done);

  // Variables to add to the environment of a local rank of a registered session:
  // PMIx_server_setup_fork's plus the SLURM_* / OMPI_MCA_* ones Open MPI 4.1 needs.
  Result<EnvList> RankEnvironment(int64_t session, uint32_t rank);
  // Entries for every rank that the user's own environment overrides.
  EnvList EnvDefaults() const;

  // A local rank completed PMIx's connection handshake (the client_connected upcall).
  void RankConnected(int64_t session, uint32_t rank);
  // A local rank was reaped; `code` is its exit status or 128+signal. A rank killed
  // before its handshake completed may have been killed inside it: see DeregisterSession.
  void RankEnded(int64_t session, uint32_t rank, int code);

  // Purges the namespace from PMIx (not waiting for it) and frees its node ranks; a
  // registration still in flight is dropped without calling its `done`. Unknown
  // sessions are ignored.
  // A session one of whose ranks was killed before its handshake completed keeps its
  // namespace in PMIx (quarantined, a few KB): libpmix 4.2.2's connection handler, when
  // the client vanishes mid-handshake, releases the rank's record twice while it is
  // still listed in the namespace (ptl_base_connection_hdlr.c, error path), and purging
  // that namespace later writes through the freed record and corrupts PMIx's heap.
  void DeregisterSession(int64_t session);
  // Namespaces left registered by DeregisterSession for that reason.
  size_t quarantined() const { return quarantined_; }

  // Answers a peer daemon's direct-modex request for a local rank
  // (PMIx_server_dmodex_request); `done` runs on the event-loop thread.
  void DirectModexLocal(const ProcName& proc, BlobDone done);

  ProcsLocation Locate(const std::vector<ProcName>& procs) const;

  // Tells this node's clients of `target_nspace` (a registered session) that ranks of
  // another session they connected to failed: PMIx event PMIX_ERR_PROC_ABORTED, the
  // failed ranks as affected procs (pmix_notify.cpp). Open MPI 4.1 aborts on it.
  void NotifyProcsFailed(const std::string& target_nspace, const ProcsFailure& failure);

  const PmixServerOptions& options() const { return options_; }
  // The node ranks currently held on this node (unique across concurrent sessions).
  const std::set<uint32_t>& node_ranks_in_use() const { return node_ranks_in_use_; }
  UpcallQueue& queue() { return *queue_; }
  // The loop upcalls are handed to: the caller's, or PMIx's own (Init with no base).
  event_base* base() const { return base_; }
  void SetServices(PmixHostServices* services) { services_ = services; }
  // False until Init has made the upcall queue: upcalls before that are refused.
  bool ready() const { return ready_; }

  // Environment hygiene for ranks: true for inherited PMIx variables that must not
  // reach a rank or the server (PMIX_* except PMIX_MCA_*).
  static bool IsInheritedPmixVariable(std::string_view name);

  struct Registration;  // one registration in flight (pmix_server.cpp)

 private:
  friend class Upcalls;
  struct SessionState {
    PmixSessionInfo info;
    std::vector<int> nodes;                  // JobNodes(info): asked for by every fence
    std::map<uint32_t, uint32_t> node_rank;  // local global-rank -> node rank
    std::set<uint32_t> connected;            // local ranks past PMIx's handshake
    int killed_unconnected = -1;             // a rank killed before that, or -1
  };

  PmixServer(PmixServerOptions options, event_base* base, PmixHostServices* services)
      : options_(std::move(options)), base_(base), services_(services) {}

  const SessionState* FindByNspace(const std::string& nspace) const;
  Result<void> BuildNspaceInfo(const PmixSessionInfo& si,
                               const std::map<uint32_t, uint32_t>& node_rank,
                               const std::string& node_map, const std::string& proc_map,
                               pmix_data_array_t* out) const;
  static void OnPmixOp(pmix_status_t status, void* cbdata);  // PMIx's progress thread
  static void OnRegistrationTimeout(int fd, short what, void* arg);
  void RegistrationStepDone(const std::shared_ptr<Registration>& reg, int64_t rank,
                            pmix_status_t status);
  void FinishRegistration(const std::shared_ptr<Registration>& reg, Result<void> r);
  void PurgeNamespace(const std::string& nspace);
  std::vector<uint32_t> AcquireNodeRanks(size_t count);
  // TMPDIR/sessions (PMIX_TMPDIR): Open MPI's top session directory. Its ranks remove the
  // files in it when they end, and it when it is left empty, never a directory they did
  // not make: its subdirectory "kept", made at Init, keeps it for the daemon's lifetime.
  std::string SessionsDir() const;
  // The session's own directory on this node, TMPDIR/sessions/SESSION (PMIX_NSDIR): Open
  // MPI's job session directory, its ranks' directories RANK inside. Open MPI's ranks
  // make it (with their own, as mkdir -p) and remove it when they leave it empty; it is
  // not made for every session, as most run no Open MPI (a mkdir and an rmdir on ext4 cost
  // 0.2-0.5 ms of each launch). Removed with the session, for ranks that were killed.
  std::string NamespaceDir(int64_t session) const;

  PmixServerOptions options_;
  event_base* base_;
  PmixHostServices* services_;
  std::unique_ptr<UpcallQueue> queue_;
  bool initialized_ = false;
  bool owns_pmix_loop_ = false;     // base_ is PMIx's, its thread stopped (Init)
  std::atomic<bool> ready_{false};  // upcalls are refused until the queue exists
  std::map<int64_t, SessionState> sessions_;
  std::map<int64_t, std::shared_ptr<Registration>> registering_;
  std::set<uint32_t> node_ranks_in_use_;
  uint32_t next_tool_id_ = 0;
  size_t quarantined_ = 0;
};

}  // namespace psched::pmix
