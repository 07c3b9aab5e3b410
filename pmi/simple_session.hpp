// One session's PMI-1 service on one node, pure: commands of its local ranks in,
// replies and actions out. The node's server (simple_server.hpp) owns the sockets and
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
#include "pmi/spawn_block.hpp"
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
};

class SimpleSession {
 public:
  explicit SimpleSession(SimpleSessionInfo info);

  // One line from local rank `rank` (already split off the stream; may be an error
  // from the splitter, answered like a malformed command).
  Outcome Handle(int rank, const Result<std::string>& line);
  // The collective of barrier number `barriers_done()` came back: `blobs` is every
  // node's contribution, concatenated. Returns the ranks to answer barrier_out (with
  // the reply line, an error line when the collective failed).
  std::pair<std::vector<int>, std::string> BarrierDone(const Result<std::string>& blobs);

  // The answer to a spawn once the children were started (or why not).
  static Outcome SpawnAnswer(const Result<void>& started);

  int barriers_done() const { return barriers_done_; }
  bool initialized(int rank) const { return initialized_.contains(rank); }
  bool finalized(int rank) const { return finalized_.contains(rank); }
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
  Outcome Spawn(int rank, std::string_view line);
  bool KvsNameOk(const Command& c) const;
  int AppnumOf(int rank) const;

  SimpleSessionInfo info_;
  std::map<std::string, std::string> kvs_;      // visible to every rank of the session
  std::map<std::string, std::string> pending_;  // this node's puts since the last barrier
  std::set<int> in_barrier_;
  bool barrier_running_ = false;  // the node collective is in flight
  int barriers_done_ = 0;
  std::set<int> initialized_;
  std::set<int> finalized_;
  std::map<int, SpawnReader> spawns_;  // by rank, while its spawn blocks arrive
};

}  // namespace psched::pmi
