// What the PMIx server host needs from the rest of pschedd.
//
// PmixServer turns PMIx upcalls into calls on this interface, always on the
// daemon's event-loop thread. The daemon implements it with its tree collective,
// point-to-point messages and the leader's name service; tests and a lone
// daemon use LocalHostServices. Every `done` must be called exactly once, on
// the event-loop thread (post to the loop if the answer arrives elsewhere).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "pmix/name_service.hpp"

namespace psched::pmix {

// PMIx's wildcard rank (PMIX_RANK_WILDCARD), kept here so callers need no PMIx header.
inline constexpr uint32_t kWildcardRank = 0xfffffffe;

struct ProcName {
  std::string nspace;
  uint32_t rank = 0;  // or kWildcardRank: every rank of nspace
  bool operator==(const ProcName&) const = default;
};

using Blob = std::string;  // opaque bytes PMIx hands us and wants back unchanged
using BlobDone = std::function<void(Result<Blob>)>;
using OpDone = std::function<void(Result<void>)>;

// One fence as seen by one node: every local participant has entered it.
struct FenceRequest {
  std::vector<int64_t> sessions;  // the sessions whose ranks take part (usually one)
  std::vector<ProcName> procs;    // participants as PMIx named them
  std::vector<int> nodes;         // allocation nodes hosting participants, ascending
  bool collect_data = false;      // PMIX_COLLECT_DATA: the blobs must be exchanged
  Blob local_data;                // this node's contribution (empty when !collect_data)
};

struct SpawnApp {
  std::string cmd;
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "NAME=value" additions from the parent
  std::string cwd;
  int max_procs = 1;
};

struct SpawnRequest {
  int64_t parent_session = -1;
  ProcName requestor;
  std::vector<SpawnApp> apps;
};

enum class JobControlAction { kPause, kResume, kTerminate, kKill, kSignal };

struct JobControlRequest {
  ProcName requestor;
  std::vector<int64_t> sessions;  // targets known to this node
  // Targets not registered on this node (sessions elsewhere): the host finds them.
  std::vector<std::string> unknown_nspaces;
  JobControlAction action = JobControlAction::kTerminate;
  int signal = 0;  // for kSignal
};

class PmixHostServices {
 public:
  virtual ~PmixHostServices() = default;

  // A local rank called PMIx_Init / PMIx_Finalize. A rank that exits after the
  // first and before the second failed, even with exit code 0.
  virtual void ClientConnected(int64_t session, uint32_t rank) = 0;
  virtual void ClientFinalized(int64_t session, uint32_t rank) = 0;

  // A rank called PMIx_Abort (MPI_Abort): kill the session on every node and let
  // its launcher print `message` and exit with `status`.
  virtual void AbortSession(int64_t session, uint32_t rank, int status, std::string message) = 0;

  // Contribute this node's blob to a collective over req.nodes and deliver the
  // concatenation of every node's blob (any order; PMIx parses it).
  virtual void FenceAcrossNodes(FenceRequest req, BlobDone done) = 0;

  // Ask the daemon of `node` for `proc`'s modex data (it answers with
  // PmixServer::DirectModexLocal).
  virtual void DirectModexRemote(ProcName proc, int node, BlobDone done) = 0;

  // The allocation's name service (kept by the leader).
  virtual void Publish(Publisher who, std::vector<std::pair<std::string, std::string>> kv,
                       Persistence persistence, OpDone done) = 0;
  virtual void Lookup(Publisher who, std::vector<std::string> keys, bool wait,
                      std::optional<std::chrono::milliseconds> timeout,
                      NameService::LookupDone done) = 0;
  virtual void Unpublish(Publisher who, std::vector<std::string> keys, OpDone done) = 0;

  // MPI_Comm_spawn: start the apps in free slots of the allocation; done gets the
  // new session's nspace once its ranks are registered everywhere.
  virtual void Spawn(SpawnRequest req, std::function<void(Result<std::string>)> done) = 0;

  // PMIx_Connect / PMIx_Disconnect: a collective over the nodes of every named proc.
  virtual void Connect(std::vector<ProcName> procs, OpDone done) = 0;
  virtual void Disconnect(std::vector<ProcName> procs, OpDone done) = 0;

  // A tool asked to pause / resume / terminate / signal sessions.
  virtual void JobControl(JobControlRequest req, OpDone done) = 0;
};

}  // namespace psched::pmix
