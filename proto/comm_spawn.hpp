// MPI_Comm_spawn's children, asked of the leader by the parent rank's node whichever
// wire-up asked (PMIx's spawn upcall, PMI-1's mcmd=spawn blocks), and its answer.
// Both travel in PeerSend::data with the pmix.* messages' one codec (proto/pmix_wire.hpp:
// a versioned MessagePack map, every field checked; no version is version 1, the format
// before it was written).
//
// The apps of one MPI_Comm_spawn(_multiple): one app is the session's command line;
// several are one session (one MPI_COMM_WORLD, ranks numbered app after app) whose ranks
// each exec their own app's command through a /bin/sh wrapper.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "proto/pmix_wire.hpp"

namespace psched::proto {

// The leader's service for a CommSpawnRequest, and the two wire-ups' for its reply.
inline constexpr std::string_view kCommSpawnService = "session.comm_spawn";
inline constexpr std::string_view kPmixSpawnedService = "pmix.spawned";
inline constexpr std::string_view kPmi1SpawnedService = "pmi1.spawned";

// A parent rank's node -> leader (PeerSend "session.comm_spawn"): MPI_Comm_spawn
// asks for a session without a launcher of its own, placed like any arrival.
struct CommSpawnRequest {
  int version = kPmixWireVersion;
  uint64_t request = 0;  // the asking node's id for the answer
  int64_t parent_session = 0;
  std::string parent_nspace;
  uint32_t parent_rank = 0;  // below the parent session's size: the leader checks
  std::vector<std::string> argv;
  std::vector<std::string> env;  // additions from the parent (OMPI_PARENT_PORT, ...)
  std::string cwd;
  int ranks = 1;
  std::vector<uint32_t> app_sizes;  // spawn_multiple: ranks per app (sums to `ranks`)
  // The asking node's service for the CommSpawnReply: the wire-up's spawn side
  // (PMIx's, or pmi/'s).
  std::string reply_service = std::string(kPmixSpawnedService);
};
PSCHED_WIRE_STRUCT(CommSpawnRequest, version, request, parent_session, parent_nspace, parent_rank,
                   argv, env, cwd, ranks, app_sizes, reply_service)

// leader -> the asking node (PeerSend to its reply_service): the children were launched
// (ok, with their nspace) or will not be (message says why).
struct CommSpawnReply {
  int version = kPmixWireVersion;
  uint64_t request = 0;
  bool ok = false;
  int64_t session = 0;
  std::string nspace;
  std::string message;
};
PSCHED_WIRE_STRUCT(CommSpawnReply, version, request, ok, session, nspace, message)

// DecodePmix, then what the fields name checked: a session is never negative, a
// request's reply_service is one of the two above. A protocol error names the service
// and what is wrong.
Result<CommSpawnRequest> DecodeCommSpawnRequest(std::string_view data);
Result<CommSpawnReply> DecodeCommSpawnReply(std::string_view data, std::string_view service);

// Why the leader refuses a decoded request, said for the parent's user: no command, an
// asking rank outside the parent session of `parent_ranks` (the rank becomes the
// children's PMIX_PARENT_ID), apps' sizes that are 0 or do not add up to `ranks`.
// nullopt: none of these.
std::optional<std::string> CommSpawnProblem(const CommSpawnRequest& ask, int parent_ranks);

struct ChildApp {
  std::vector<std::string> argv;  // the command first
  std::vector<std::string> env;   // "NAME=value" additions for this app's ranks
  std::string cwd;                // "": the parent's
  int ranks = 1;
};

// Fills ask.argv, env, cwd, ranks and (several apps) app_sizes from `apps` (at least
// one, each with a command). Variables every app adds go into the session's
// environment, the others into the wrapper, per app.
void SetChildApps(CommSpawnRequest& ask, const std::vector<ChildApp>& apps);

}  // namespace psched::proto
