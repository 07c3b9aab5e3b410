// One session's PMI service on one node, pure: commands of its local ranks in, replies
// and actions out. A rank speaks PMI-1 (wire.hpp) or, once its init asked for version 2,
// PMI-2 (wire2.hpp); both kinds share one key-value space and one barrier (PMI-2's
// kvs-fence is PMI-1's barrier). The node's server (simple_server.hpp) owns the sockets and
// carries out what this decides.
//
// The key-value space: a rank's put is visible at once to the ranks of its node, and
// to every rank of the session after the next barrier. A barrier completes on this node
// once every local rank has entered it; the node then contributes the puts since the
// previous barrier to one collective over the session's nodes (the daemon tree's, as
// PMIx fences do) and, with every node's puts merged, answers barrier_out.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "pmi/comm_spawn_block.hpp"
#include "pmi/wire.hpp"

namespace psched::pmi {

struct SimpleSessionInfo {
  std::string kvsname;
  int size = 0;
  int universe_size = 0;
  std::vector<int> local_ranks;           // this node's ranks of the session
  std::vector<int> appnum_of_local_rank;  // parallel to local_ranks (empty: all 0)
  std::string process_mapping;            // PMI_process_mapping (process_mapping.hpp)
  // MPI_Comm_spawn children: what the parent put for them (its port), visible to every
  // rank from the start.
  std::map<std::string, std::string> preput;
  // The versions a client's init may ask for (psched-exec --mpi: auto serves both).
  bool serve_pmi1 = true;
  bool serve_pmi2 = true;
  std::string spawner_jobid;  // MPI_Comm_spawn children: the parent's kvsname
  // The host topology's XML as the ranks open it (host_topology.hpp), "" for none:
  // PMI_hwloc_xmlfile, which newer MPICH asks for instead of discovering.
  std::string hwloc_xmlfile;
};

// What the server must do after one command.
struct Outcome {
  std::string reply;  // a line to write back to the rank ("" for none)
  // A malformed or refused command: the why, for the daemon's log (the rank got it too).
  std::string problem;
  // Every local rank is in the barrier: contribute this blob to the node collective
  // and call BarrierDone with its result.
  std::optional<std::string> barrier_blob;
  // The rank called abort: end the session with this code and message.
  std::optional<std::pair<int, std::string>> abort;
  bool finalized = false;  // the rank said finalize (its connection may close)
  // The rank asked for MPI_Comm_spawn: start the children, then answer SpawnAnswer.
  std::optional<SpawnRequest> spawn;
  // The rank's init was answered for PMI-2: what it sends from now on is PMI-2 messages.
  bool pmi2 = false;
  // Answers to other local ranks (a PMI-2 node attribute they waited for), by rank.
  std::vector<std::pair<int, std::string>> to_others;
};

class SimpleSession {
 public:
  explicit SimpleSession(SimpleSessionInfo info);

  // One line from local rank `rank` (already split off the stream; may be an error
  // from the splitter, answered like a malformed command).
  Outcome Handle(int rank, const Result<std::string>& line);
  // One PMI-2 message body from local rank `rank` (FrameSplitter; may be its error).
  Outcome Handle2(int rank, const Result<std::string>& body);
  // The collective of barrier number `barriers_done()` came back: `blobs` is every
  // node's contribution, concatenated. Returns each waiting rank with its answer
  // (barrier_out or kvs-fence-response; an error when the collective failed).
  std::vector<std::pair<int, std::string>> BarrierDone(const Result<std::string>& blobs);

  // The answer to a spawn once the children were started (or why not).
  static Outcome SpawnAnswer(const Result<void>& started);

  int barriers_done() const { return barriers_done_; }
  bool initialized(int rank) const { return initialized_.contains(rank); }
  bool finalized(int rank) const { return finalized_.contains(rank); }
  bool speaks_pmi2(int rank) const { return pmi2_ranks_.contains(rank); }
  const SimpleSessionInfo& info() const { return info_; }

  // The blob of a set of puts and back: "key=value\n" lines (keys hold no '=' and
  // values no newline, so blobs concatenate).
  static std::string EncodePuts(const std::map<std::string, std::string>& puts);
  static Result<std::map<std::string, std::string>> DecodePuts(const std::string& blob);

 private:
  Outcome Dispatch(int rank, const Command& c);
  Outcome Put(const Command& c);
  Outcome Get(const Command& c) const;
  Outcome Barrier(int rank);
  Outcome Init(int rank, const Command& c);
  Outcome Dispatch2(int rank, const Command& c);
  Outcome KvsGet2(const Command& c) const;
  Outcome GetNodeAttr2(int rank, const Command& c);
  Outcome PutNodeAttr2(const Command& c);
  Outcome GetJobAttr2(const Command& c) const;
  // An error answer in the rank's own protocol under the reply its command waits for.
  Outcome RefuseFor(int rank, std::string_view pmi1_reply, std::string_view pmi2_reply, int pmi2_rc,
                    const std::string& why) const;
  std::string Versions() const;
  Outcome Spawn(int rank, std::string_view line);
  bool KvsNameOk(const Command& c) const;
  int AppnumOf(int rank) const;
  // A PMI-2 answer with the thrid of the request it answers, if that had one.
  static std::optional<std::string> ThridOf(const Command& c);
  static std::string WithThrid(std::string message, const std::optional<std::string>& thrid);

  SimpleSessionInfo info_;
  std::map<std::string, std::string> kvs_;      // visible to every rank of the session
  std::map<std::string, std::string> pending_;  // this node's puts since the last barrier
  std::set<int> in_barrier_;
  bool barrier_running_ = false;  // the node collective is in flight
  int barriers_done_ = 0;
  std::set<int> initialized_;
  std::set<int> finalized_;
  std::map<int, SpawnReader> spawns_;  // by rank, while its spawn blocks arrive
  std::set<int> pmi2_ranks_;           // ranks whose init asked for PMI-2
  // PMI-2 node attributes: this node's ranks of the session share them.
  std::map<std::string, std::string> node_attrs_;
  struct AttrWaiter {
    int rank = 0;
    std::optional<std::string> thrid;  // of its info-getnodeattr
  };
  std::map<std::string, std::vector<AttrWaiter>> attr_waiters_;  // by key: waiting for a put
  std::map<int, std::string> fence_thrid_;  // by rank: the thrid of its kvs-fence in flight
};

}  // namespace psched::pmi
