#include "proto/comm_spawn.hpp"

#include <gtest/gtest.h>

namespace psched::proto {
namespace {

TEST(ChildApps, OneAppIsTheSessionsOwnCommandLine) {
  CommSpawnRequest ask;
  SetChildApps(ask, {{{"./a.out", "x y"}, {"OMPI_PARENT_PORT=p"}, "/tmp", 3}});
  EXPECT_EQ(ask.argv, (std::vector<std::string>{"./a.out", "x y"}));
  EXPECT_EQ(ask.env, (std::vector<std::string>{"OMPI_PARENT_PORT=p"}));
  EXPECT_EQ(ask.cwd, "/tmp");
  EXPECT_EQ(ask.ranks, 3);
  EXPECT_TRUE(ask.app_sizes.empty());
}

TEST(ChildApps, SeveralAppsAreOneSessionWithAWrapperPerRank) {
  CommSpawnRequest ask;
  SetChildApps(ask,
               {{{"./a", "it's"}, {"P=1", "A=only"}, "", 2}, {{"./b"}, {"P=1"}, "/work dir", 1}});
  EXPECT_EQ(ask.ranks, 3);
  EXPECT_EQ(ask.app_sizes, (std::vector<uint32_t>{2, 1}));
  EXPECT_EQ(ask.env, (std::vector<std::string>{"P=1"}));  // what every app adds
  ASSERT_EQ(ask.argv.size(), 4u);
  EXPECT_EQ(ask.argv[0], "/bin/sh");
  EXPECT_EQ(ask.argv[2],
            "r=${PSCHED_RANK:?}; if [ \"$r\" -lt 2 ]; then exec env 'A=only' './a' 'it'\\''s'; "
            "elif [ \"$r\" -lt 3 ]; then cd '/work dir' || exit 126; exec env './b'; fi; exit 127");
}

// The request and reply travel in the pmix.* codec: versioned, every field checked.
TEST(CommSpawnWire, RequestAndReplyRoundTrip) {
  CommSpawnRequest ask{.request = UINT64_MAX,
                       .parent_session = 7,
                       .parent_nspace = "psched.1.7",
                       .parent_rank = 4000000000u};
  SetChildApps(ask, {{{"./a"}, {"P=1"}, "", 2}, {{"./b"}, {"P=1"}, "/w", 1}});
  ask.reply_service = std::string(kPmi1SpawnedService);
  auto back = DecodeCommSpawnRequest(EncodePmix(ask));
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(Json(*back), Json(ask));
  EXPECT_EQ(back->version, kPmixWireVersion);
  CommSpawnReply no{.request = 3, .message = "refused: why"};
  auto reply = DecodeCommSpawnReply(EncodePmix(no), kPmixSpawnedService);
  ASSERT_TRUE(reply) << reply.error().ToString();
  EXPECT_EQ(Json(*reply), Json(no));
}

// The format before versions were written (no "version"; the same field names) is
// version 1: a daemon of this build reads what an older one sends.
TEST(CommSpawnWire, AMessageWithoutVersionIsVersionOne) {
  auto ask = DecodeCommSpawnRequest(
      EncodePmixJson({{"request", 2}, {"parent_session", 1}, {"argv", {"./a"}}, {"ranks", 2}}));
  ASSERT_TRUE(ask) << ask.error().ToString();
  EXPECT_EQ(ask->version, 1);
  EXPECT_EQ(ask->reply_service, "pmix.spawned");
  auto reply = DecodeCommSpawnReply(
      EncodePmixJson({{"request", 2}, {"ok", true}, {"session", 3}, {"nspace", "psched.1.3"}}),
      kPmixSpawnedService);
  ASSERT_TRUE(reply) << reply.error().ToString();
  EXPECT_EQ(reply->nspace, "psched.1.3");
}

template <typename T>
std::string Error(const Result<T>& m) {
  if (m) return "decoded";
  EXPECT_EQ(m.error().code(), ErrorCode::kProtocol);
  return m.error().message();
}

TEST(CommSpawnWire, FieldsAndIdsAreChecked) {
  auto ask = [](const Json& j) { return Error(DecodeCommSpawnRequest(EncodePmixJson(j))); };
  EXPECT_EQ(ask({{"parent_rank", -1}}),
            "malformed session.comm_spawn message: 'parent_rank' is out of range: -1");
  EXPECT_EQ(ask({{"ranks", 2.5}}),
            "malformed session.comm_spawn message: 'ranks' is not an integer: 2.5");
  EXPECT_EQ(ask({{"app_sizes", {1, 4294967296}}}),
            "malformed session.comm_spawn message: 'app_sizes[1]' is out of range: "
            "4294967296");
  EXPECT_EQ(ask({{"parent_session", -3}}),
            "malformed session.comm_spawn message: 'parent_session' -3 is a negative session");
  EXPECT_EQ(ask({{"reply_service", "session.comm_spawn"}}),
            "malformed session.comm_spawn message: 'reply_service' is no wire-up's spawn "
            "service: \"session.comm_spawn\"");
  EXPECT_EQ(ask({{"version", 2}}), "session.comm_spawn version 2, this daemon speaks version 1");
  EXPECT_EQ(Error(DecodeCommSpawnRequest("\x93")),
            "malformed session.comm_spawn message: not a MessagePack map");
  auto reply = [](const Json& j) {
    return Error(DecodeCommSpawnReply(EncodePmixJson(j), kPmi1SpawnedService));
  };
  EXPECT_EQ(reply({{"ok", 1}}), "malformed pmi1.spawned message: 'ok' is not a boolean: 1");
  EXPECT_EQ(reply({{"session", -1}}),
            "malformed pmi1.spawned message: 'session' -1 is a negative session");
  EXPECT_EQ(reply({{"request", -1}}),
            "malformed pmi1.spawned message: 'request' is out of range: -1");
}

// The asking rank is an id from the wire: it becomes the children's PMIX_PARENT_ID, so
// one outside the parent session is refused (it was not checked before).
TEST(CommSpawnWire, TheLeaderRefusesAnAskingRankOutsideTheParentSession) {
  CommSpawnRequest ask{.parent_session = 1, .parent_rank = 3, .argv = {"./a"}, .ranks = 2};
  EXPECT_EQ(CommSpawnProblem(ask, 4), std::nullopt);
  EXPECT_EQ(CommSpawnProblem(ask, 3), "the asking rank 3 is outside the parent session of 3 ranks");
  ask.parent_rank = 4000000000u;
  EXPECT_EQ(CommSpawnProblem(ask, 4),
            "the asking rank 4000000000 is outside the parent session of 4 ranks");
  ask.parent_rank = 0;
  ask.app_sizes = {1, 2};
  EXPECT_EQ(CommSpawnProblem(ask, 4), "the apps' sizes do not add up to the 2 processes asked for");
  ask.app_sizes = {2, 0};
  EXPECT_EQ(CommSpawnProblem(ask, 4), "the apps' sizes do not add up to the 2 processes asked for");
  ask.argv.clear();
  EXPECT_EQ(CommSpawnProblem(ask, 4), "no command given");
}

}  // namespace
}  // namespace psched::proto
