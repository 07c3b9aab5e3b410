// MPI_Comm_spawn over PMI-1, pure: MPICH's simple client (PMI_Spawn_multiple) sends one
// block of lines per command to start, then waits for a single cmd=spawn_result:
//
//   mcmd=spawn
//   nprocs=2
//   execname=./child
//   totspawns=1
//   spawnssofar=1
//   arg1=...            (argN=, any text up to the newline)
//   argcnt=1
//   preput_num=1
//   preput_key_0=PARENT_ROOT_PORT_NAME
//   preput_val_0=...
//   info_num=1
//   info_key_0=wdir
//   info_val_0=/tmp
//   endcmd
//
// The preput pairs go into the children's key-value space (MPICH's children read their
// parent's port from it); info keys are hints (wdir is honoured).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"

namespace psched::pmi {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

struct SpawnApp {
  int nprocs = 0;
  std::string execname;
  std::vector<std::string> args;  // without the command itself
  KeyValues info;
  // The info value of `key` ("wdir": the app's directory), or "".
  std::string Info(std::string_view key) const;
};

struct SpawnRequest {
  std::vector<SpawnApp> apps;
  KeyValues preput;  // the same in every block; taken from the first
};

// The blocks of one rank's spawn, line by line (lines already split off the stream).
class SpawnReader {
 public:
  // Does this line open a block? ("mcmd=spawn")
  static bool Opens(std::string_view line);
  bool open() const { return open_; }
  // One line of a block, the opening one included. Returns nullopt while the spawn goes
  // on (more lines or more blocks), the request after the last block's endcmd, or the
  // first problem found in any of its blocks (reported once, after the last block, so
  // the client reads exactly one answer).
  std::optional<Result<SpawnRequest>> Add(std::string_view line);

 private:
  // One block's key=value lines into an app; `last` says whether it was the last block.
  Result<SpawnApp> Finish(bool& last);

  bool open_ = false;
  KeyValues lines_;  // the current block's key=value lines, in order
  SpawnRequest request_;
  std::optional<Error> problem_;
};

}  // namespace psched::pmi
