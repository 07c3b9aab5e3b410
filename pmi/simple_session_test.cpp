#include "pmi/simple_session.hpp"

#include <gtest/gtest.h>

#include "pmi/wire2.hpp"

namespace psched::pmi {
namespace {

SimpleSessionInfo TwoLocalOfFour() {
  SimpleSessionInfo info;
  info.kvsname = "psched.9.1";
  info.size = 4;
  info.universe_size = 4;
  info.local_ranks = {0, 1};
  info.process_mapping = "(vector,(0,2,2))";
  return info;
}

Outcome Send(SimpleSession& s, int rank, const std::string& line) {
  return s.Handle(rank, Result<std::string>(line));
}

TEST(SimpleSession, InitNegotiatesVersionOne) {
  // --mpi pmi1: a PMI-2 client is told it is not served (auto serves it: the PMI-2 tests).
  SimpleSessionInfo info = TwoLocalOfFour();
  info.serve_pmi2 = false;
  SimpleSession s(info);
  EXPECT_EQ(Send(s, 0, "cmd=init pmi_version=1 pmi_subversion=1").reply,
            "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  EXPECT_TRUE(s.initialized(0));
  Outcome two = Send(s, 1, "cmd=init pmi_version=2 pmi_subversion=0");
  EXPECT_NE(two.reply.find("rc=-1"), std::string::npos);
  EXPECT_NE(two.problem.find("PMI version 2"), std::string::npos);
  EXPECT_FALSE(s.initialized(1));
}

TEST(SimpleSession, AnswersTheIdentityQueries) {
  SimpleSession s(TwoLocalOfFour());
  EXPECT_EQ(Send(s, 0, "cmd=get_maxes").reply,
            "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024 rc=0\n");
  EXPECT_EQ(Send(s, 0, "cmd=get_appnum").reply, "cmd=appnum appnum=0 rc=0\n");
  EXPECT_EQ(Send(s, 0, "cmd=get_my_kvsname").reply, "cmd=my_kvsname kvsname=psched.9.1 rc=0\n");
  EXPECT_EQ(Send(s, 0, "cmd=get_universe_size").reply, "cmd=universe_size size=4 rc=0\n");
  EXPECT_EQ(Send(s, 0, "cmd=get kvsname=psched.9.1 key=PMI_process_mapping").reply,
            "cmd=get_result rc=0 msg=success value=(vector,(0,2,2))\n");
}

TEST(SimpleSession, PutsAreLocalAtOnceAndGlobalAfterTheBarrier) {
  SimpleSession s(TwoLocalOfFour());
  EXPECT_EQ(Send(s, 0, "cmd=put kvsname=psched.9.1 key=addr0 value=tcp://a").reply,
            "cmd=put_result rc=0 msg=success\n");
  EXPECT_NE(Send(s, 1, "cmd=get kvsname=psched.9.1 key=addr0").reply.find("value=tcp://a"),
            std::string::npos);
  // A key of another node is not there before the barrier.
  Outcome missing = Send(s, 1, "cmd=get kvsname=psched.9.1 key=addr2");
  EXPECT_NE(missing.reply.find("rc=-1"), std::string::npos);
  EXPECT_TRUE(missing.problem.empty());

  Outcome first = Send(s, 0, "cmd=barrier_in");
  EXPECT_TRUE(first.reply.empty());
  EXPECT_FALSE(first.barrier_blob);  // rank 1 is not in yet
  Outcome last = Send(s, 1, "cmd=barrier_in");
  ASSERT_TRUE(last.barrier_blob);
  EXPECT_EQ(*last.barrier_blob, "addr0=tcp://a\n");
  // The other node's blob follows ours in the collective's result.
  const auto answers = s.BarrierDone(*last.barrier_blob + "addr2=tcp://c\naddr3=x=y\n");
  EXPECT_EQ(answers, (std::vector<std::pair<int, std::string>>{{0, "cmd=barrier_out rc=0\n"},
                                                               {1, "cmd=barrier_out rc=0\n"}}));
  EXPECT_EQ(s.barriers_done(), 1);
  EXPECT_NE(Send(s, 0, "cmd=get kvsname=psched.9.1 key=addr3").reply.find("value=x=y"),
            std::string::npos);
  // Nothing new since: the next barrier contributes an empty blob.
  (void)Send(s, 0, "cmd=barrier_in");
  EXPECT_EQ(Send(s, 1, "cmd=barrier_in").barrier_blob, "");
}

TEST(SimpleSession, AFailedCollectiveFailsTheBarrierForEveryLocalRank) {
  SimpleSession s(TwoLocalOfFour());
  (void)Send(s, 0, "cmd=barrier_in");
  (void)Send(s, 1, "cmd=barrier_in");
  const auto answers = s.BarrierDone(Fail(ErrorCode::kSystem, "node 1 lost"));
  ASSERT_EQ(answers.size(), 2u);
  for (const auto& [rank, line] : answers)
    EXPECT_EQ(line, "cmd=barrier_out rc=-1 msg=barrier_failed:_node_1_lost\n");
}

TEST(SimpleSession, MissingReservedKeysAreEmptyNotErrors) {
  SimpleSession s(TwoLocalOfFour());
  EXPECT_EQ(Send(s, 0, "cmd=get kvsname=psched.9.1 key=PMI_dead_processes").reply,
            "cmd=get_result rc=0 msg=success value=\n");
}

TEST(SimpleSession, MalformedCommandsAreAnsweredWithTheReason) {
  SimpleSession s(TwoLocalOfFour());
  Outcome garbage = Send(s, 0, "hello there");
  EXPECT_EQ(garbage.reply.rfind("cmd=error rc=-1 msg=malformed_command", 0), 0u) << garbage.reply;
  EXPECT_FALSE(garbage.problem.empty());
  Outcome unknown = Send(s, 0, "cmd=frobnicate");
  EXPECT_EQ(unknown.reply, "cmd=error rc=-1 msg=unknown_command_'frobnicate'\n");
  Outcome no_value = Send(s, 0, "cmd=put kvsname=psched.9.1 key=a");
  EXPECT_EQ(no_value.reply, "cmd=put_result rc=-1 msg=put_needs_key_and_value\n");
  Outcome other_kvs = Send(s, 0, "cmd=get kvsname=other key=a");
  EXPECT_NE(other_kvs.reply.find("unknown_kvsname"), std::string::npos);
  Outcome long_key = Send(s, 0, "cmd=put key=" + std::string(kKeyMax, 'k') + " value=1");
  EXPECT_NE(long_key.reply.find("rc=-1"), std::string::npos);
  Outcome spawn = Send(s, 0, "cmd=publish_name service=a port=b");
  EXPECT_EQ(spawn.reply.rfind("cmd=publish_result rc=-1", 0), 0u);
  Outcome twice = Send(s, 0, "cmd=barrier_in");
  EXPECT_TRUE(twice.reply.empty());
  EXPECT_NE(Send(s, 0, "cmd=barrier_in").reply.find("already_in_the_barrier"), std::string::npos);
  Outcome too_long = s.Handle(0, Fail(ErrorCode::kProtocol, "line longer than 1023 bytes"));
  EXPECT_EQ(too_long.reply, "cmd=error rc=-1 msg=line_longer_than_1023_bytes\n");
}

TEST(SimpleSession, AbortCarriesCodeAndMessageAndFinalizeIsAcknowledged) {
  SimpleSession s(TwoLocalOfFour());
  Outcome a = Send(s, 1, "cmd=abort exitcode=7 message=bad input");
  ASSERT_TRUE(a.abort);
  EXPECT_EQ(a.abort->first, 7);
  EXPECT_EQ(a.abort->second, "called MPI_Abort (PMI abort) with status 7: bad input");
  EXPECT_TRUE(a.reply.empty());
  Outcome plain = Send(s, 0, "cmd=abort");
  ASSERT_TRUE(plain.abort);
  EXPECT_EQ(plain.abort->first, 1);
  Outcome f = Send(s, 0, "cmd=finalize");
  EXPECT_EQ(f.reply, "cmd=finalize_ack rc=0\n");
  EXPECT_TRUE(f.finalized);
  EXPECT_TRUE(s.finalized(0));
}

TEST(SimpleSession, AppnumFollowsTheRanksApp) {
  SimpleSessionInfo info = TwoLocalOfFour();
  info.appnum_of_local_rank = {0, 1};
  SimpleSession s(info);
  EXPECT_EQ(Send(s, 1, "cmd=get_appnum").reply, "cmd=appnum appnum=1 rc=0\n");
}

TEST(SimpleSession, BlobsRoundTripAndRejectGarbage) {
  std::map<std::string, std::string> puts = {{"a", "1"}, {"b", "x=y"}, {"c", ""}};
  auto back = SimpleSession::DecodePuts(SimpleSession::EncodePuts(puts));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, puts);
  EXPECT_FALSE(SimpleSession::DecodePuts("a=1"));
  EXPECT_FALSE(SimpleSession::DecodePuts("=1\n"));
  EXPECT_FALSE(SimpleSession::DecodePuts("novalue\n"));
}

// mcmd=spawn blocks are gathered per rank without answers; after the last, the session
// asks the server to start the children, and SpawnAnswer is the reply the client reads.
TEST(SimpleSession, SpawnBlocksBecomeOneRequestAndOneAnswer) {
  SimpleSession s(TwoLocalOfFour());
  const std::vector<std::string> block = {"mcmd=spawn",   "nprocs=3",      "execname=./child",
                                          "totspawns=1",  "spawnssofar=1", "argcnt=0",
                                          "preput_num=0", "info_num=0"};
  for (const auto& line : block) {
    Outcome o = Send(s, 1, line);
    EXPECT_TRUE(o.reply.empty()) << line << ": " << o.reply;
    EXPECT_FALSE(o.spawn.has_value());
  }
  // Another rank's commands are served meanwhile.
  EXPECT_EQ(Send(s, 0, "cmd=get_appnum").reply, "cmd=appnum appnum=0 rc=0\n");
  Outcome end = Send(s, 1, "endcmd");
  ASSERT_TRUE(end.spawn.has_value());
  EXPECT_EQ(end.spawn->apps.at(0).nprocs, 3);
  EXPECT_TRUE(end.reply.empty());
  EXPECT_EQ(SimpleSession::SpawnAnswer({}).reply, "cmd=spawn_result rc=0\n");
  Outcome refused =
      SimpleSession::SpawnAnswer(Fail(ErrorCode::kResourceExhausted, "needs 9 slots"));
  EXPECT_EQ(refused.reply, "cmd=spawn_result rc=-1 msg=needs_9_slots\n");
  EXPECT_EQ(refused.problem, "needs 9 slots");
  // The rank is back to single-line commands.
  EXPECT_EQ(Send(s, 1, "cmd=get_appnum").reply, "cmd=appnum appnum=0 rc=0\n");
}

// MPI_Comm_spawn_multiple: one block per command, one request (and one answer) for all.
TEST(SimpleSession, SpawnMultipleIsOneRequestOfEveryCommand) {
  SimpleSession s(TwoLocalOfFour());
  Outcome o;
  for (int b = 1; b <= 2; ++b) {
    for (const auto& line :
         {std::string("mcmd=spawn"), "nprocs=" + std::to_string(b),
          "execname=x" + std::to_string(b), std::string("totspawns=2"),
          "spawnssofar=" + std::to_string(b), std::string("argcnt=0"), std::string("preput_num=0"),
          std::string("info_num=0"), std::string("endcmd")})
      o = Send(s, 0, line);
  }
  ASSERT_TRUE(o.spawn.has_value()) << o.reply;
  EXPECT_TRUE(o.reply.empty());  // answered once the children started
  ASSERT_EQ(o.spawn->apps.size(), 2u);
  EXPECT_EQ(o.spawn->apps[0].execname, "x1");
  EXPECT_EQ(o.spawn->apps[1].nprocs, 2);
}

// Children see their parent's preput pairs (MPICH's PARENT_ROOT_PORT_NAME) from the start.
TEST(SimpleSession, PreputPairsAreThereForEveryRank) {
  SimpleSessionInfo info = TwoLocalOfFour();
  info.preput = {{"PARENT_ROOT_PORT_NAME", "tag#0$x$"}};
  SimpleSession s(info);
  EXPECT_EQ(Send(s, 1, "cmd=get kvsname=psched.9.1 key=PARENT_ROOT_PORT_NAME").reply,
            "cmd=get_result rc=0 msg=success value=tag#0$x$\n");
}

// PMI_hwloc_xmlfile as hydra answers it: the daemon's XML, or "unavailable".
TEST(SimpleSession, HwlocXmlfileIsTheDaemonsTopologyOrUnavailable) {
  SimpleSessionInfo info = TwoLocalOfFour();
  SimpleSession without(info);
  EXPECT_EQ(Send(without, 0, "cmd=get kvsname=psched.9.1 key=PMI_hwloc_xmlfile").reply,
            "cmd=get_result rc=0 msg=success value=unavailable\n");
  info.hwloc_xmlfile = "/proc/self/fd/9";
  SimpleSession s(info);
  EXPECT_EQ(Send(s, 0, "cmd=get kvsname=psched.9.1 key=PMI_hwloc_xmlfile").reply,
            "cmd=get_result rc=0 msg=success value=/proc/self/fd/9\n");
}

// The PMI-2 side: what a libpmi2 client gets for each command, and that PMI-1 and PMI-2
// ranks share one key-value space and one barrier.

// A rank's init on the PMI-1 wire, asking for PMI-2.
void InitPmi2(SimpleSession& s, int rank) {
  Outcome o = s.Handle(rank, Result<std::string>("cmd=init pmi_version=2 pmi_subversion=0"));
  ASSERT_TRUE(o.pmi2) << o.reply;
  ASSERT_EQ(o.reply, "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n");
}

// One PMI-2 message, answered: the reply's body (its length field checked and cut).
Outcome Send2(SimpleSession& s, int rank, const std::string& body) {
  Outcome o = s.Handle2(rank, Result<std::string>(body));
  if (!o.reply.empty()) {
    EXPECT_EQ(std::stoul(o.reply.substr(0, kPmi2LengthField)), o.reply.size() - kPmi2LengthField);
    o.reply.erase(0, kPmi2LengthField);
  }
  return o;
}

TEST(SimpleSessionPmi2, InitSwitchesTheRankToPmi2AndFullinitTellsItsIdentity) {
  SimpleSessionInfo info = TwoLocalOfFour();
  info.spawner_jobid = "psched.9.0";
  SimpleSession s(info);
  InitPmi2(s, 1);
  EXPECT_TRUE(s.initialized(1));
  EXPECT_TRUE(s.speaks_pmi2(1));
  EXPECT_FALSE(s.speaks_pmi2(0));
  EXPECT_EQ(Send2(s, 1, "cmd=fullinit;pmirank=1;threaded=FALSE;").reply,
            "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;size=4;appnum=0;"
            "debugged=FALSE;pmiverbose=FALSE;spawner-jobid=psched.9.0;");
  Outcome other = Send2(s, 1, "cmd=fullinit;pmirank=3;threaded=FALSE;");
  EXPECT_EQ(other.reply.rfind("cmd=fullinit-response;rc=3;errmsg=fullinit for rank 3", 0), 0u)
      << other.reply;
  EXPECT_EQ(Send2(s, 1, "cmd=job-getid;").reply, "cmd=job-getid-response;rc=0;jobid=psched.9.1;");
}

TEST(SimpleSessionPmi2, WireUpDecidesWhichVersionsAreServed) {
  SimpleSessionInfo only2 = TwoLocalOfFour();
  only2.serve_pmi1 = false;  // --mpi pmi2
  SimpleSession s(only2);
  Outcome one = s.Handle(0, Result<std::string>("cmd=init pmi_version=1 pmi_subversion=1"));
  EXPECT_FALSE(one.pmi2);
  EXPECT_EQ(one.reply.rfind("cmd=response_to_init rc=-1 pmi_version=2", 0), 0u) << one.reply;
  EXPECT_NE(one.problem.find("PMI-2 only"), std::string::npos) << one.problem;
  InitPmi2(s, 1);
}

TEST(SimpleSessionPmi2, PutsTravelThroughTheSameBarrierAsPmi1) {
  SimpleSession s(TwoLocalOfFour());
  InitPmi2(s, 0);
  (void)s.Handle(1, Result<std::string>("cmd=init pmi_version=1 pmi_subversion=1"));
  EXPECT_EQ(Send2(s, 0, "cmd=kvs-put;key=bc-0;value=a;;b;").reply, "cmd=kvs-put-response;rc=0;");
  // Visible on this node at once, to either protocol.
  EXPECT_EQ(Send2(s, 0, "cmd=kvs-get;jobid=;srcid=0;key=bc-0;").reply,
            "cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b;");
  EXPECT_NE(s.Handle(1, Result<std::string>("cmd=get kvsname=psched.9.1 key=bc-0"))
                .reply.find("value=a;b"),
            std::string::npos);
  EXPECT_TRUE(Send2(s, 0, "cmd=kvs-fence;").reply.empty());
  Outcome last = s.Handle(1, Result<std::string>("cmd=barrier_in"));
  ASSERT_TRUE(last.barrier_blob);
  EXPECT_EQ(*last.barrier_blob, "bc-0=a;b\n");
  const auto answers = s.BarrierDone(*last.barrier_blob + "bc-2=c\n");
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0], std::make_pair(0, FormatMessage2("kvs-fence-response", {{"rc", "0"}})));
  EXPECT_EQ(answers[1], std::make_pair(1, std::string("cmd=barrier_out rc=0\n")));
  EXPECT_EQ(Send2(s, 0, "cmd=kvs-get;jobid=psched.9.1;srcid=2;key=bc-2;").reply,
            "cmd=kvs-get-response;rc=0;found=TRUE;value=c;");
  EXPECT_EQ(Send2(s, 0, "cmd=kvs-get;jobid=;srcid=2;key=nope;").reply,
            "cmd=kvs-get-response;rc=0;found=FALSE;");
  EXPECT_EQ(Send2(s, 0, "cmd=kvs-get;jobid=other;srcid=2;key=bc-2;").reply,
            "cmd=kvs-get-response;rc=3;errmsg=unknown jobid 'other';");
}

TEST(SimpleSessionPmi2, AFailedCollectiveFailsTheFenceWithItsReason) {
  SimpleSession s(TwoLocalOfFour());
  InitPmi2(s, 0);
  InitPmi2(s, 1);
  (void)Send2(s, 0, "cmd=kvs-fence;");
  EXPECT_TRUE(Send2(s, 1, "cmd=kvs-fence;").reply.empty());
  for (const auto& [rank, reply] : s.BarrierDone(Fail(ErrorCode::kSystem, "node 1 lost")))
    EXPECT_EQ(reply, FormatMessage2("kvs-fence-response",
                                    {{"rc", "14"}, {"errmsg", "barrier failed: node 1 lost"}}));
}

TEST(SimpleSessionPmi2, JobAttributesCarryTheProcessMappingUniverseAndTopology) {
  SimpleSessionInfo info = TwoLocalOfFour();
  info.universe_size = 8;
  SimpleSession s(info);
  InitPmi2(s, 0);
  EXPECT_EQ(Send2(s, 0, "cmd=info-getjobattr;key=PMI_process_mapping;").reply,
            "cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,2,2));");
  EXPECT_EQ(Send2(s, 0, "cmd=info-getjobattr;key=universeSize;").reply,
            "cmd=info-getjobattr-response;rc=0;found=TRUE;value=8;");
  EXPECT_EQ(Send2(s, 0, "cmd=info-getjobattr;key=PMI_hwloc_xmlfile;").reply,
            "cmd=info-getjobattr-response;rc=0;found=FALSE;");
  info.hwloc_xmlfile = "/proc/self/fd/9";
  SimpleSession with(info);
  InitPmi2(with, 0);
  EXPECT_EQ(Send2(with, 0, "cmd=info-getjobattr;key=PMI_hwloc_xmlfile;").reply,
            "cmd=info-getjobattr-response;rc=0;found=TRUE;value=/proc/self/fd/9;");
  EXPECT_EQ(Send2(with, 0, "cmd=info-getjobattr;key=PMI_dead_processes;").reply,
            "cmd=info-getjobattr-response;rc=0;found=FALSE;");
}

TEST(SimpleSessionPmi2, NodeAttributesAreSharedAndAWaitEndsWithThePut) {
  SimpleSession s(TwoLocalOfFour());
  InitPmi2(s, 0);
  InitPmi2(s, 1);
  EXPECT_EQ(Send2(s, 1, "cmd=info-getnodeattr;key=shm;wait=FALSE;").reply,
            "cmd=info-getnodeattr-response;rc=0;found=FALSE;");
  EXPECT_TRUE(Send2(s, 1, "cmd=info-getnodeattr;key=shm;wait=TRUE;").reply.empty());
  Outcome put = Send2(s, 0, "cmd=info-putnodeattr;key=shm;value=/dev/shm/x;");
  EXPECT_EQ(put.reply, "cmd=info-putnodeattr-response;rc=0;");
  ASSERT_EQ(put.to_others.size(), 1u);
  EXPECT_EQ(put.to_others[0].first, 1);
  EXPECT_EQ(put.to_others[0].second,
            FormatMessage2("info-getnodeattr-response",
                           {{"rc", "0"}, {"found", "TRUE"}, {"value", "/dev/shm/x"}}));
  EXPECT_EQ(Send2(s, 1, "cmd=info-getnodeattr;key=shm;wait=TRUE;").reply,
            "cmd=info-getnodeattr-response;rc=0;found=TRUE;value=/dev/shm/x;");
}

TEST(SimpleSessionPmi2, EveryAnswerCarriesTheThridOfItsRequest) {
  // A threaded client hands each answer to the thread whose thrid it carries.
  SimpleSession s(TwoLocalOfFour());
  InitPmi2(s, 0);
  InitPmi2(s, 1);
  EXPECT_EQ(Send2(s, 0, "cmd=kvs-put;thrid=0x10;key=k;value=v;").reply,
            "cmd=kvs-put-response;rc=0;thrid=0x10;");
  EXPECT_EQ(Send2(s, 0, "cmd=kvs-get;thrid=0x11;jobid=;key=k;").reply,
            "cmd=kvs-get-response;rc=0;found=TRUE;value=v;thrid=0x11;");
  EXPECT_EQ(Send2(s, 0, "cmd=frobnicate;thrid=0x12;").reply,
            "cmd=frobnicate-response;rc=3;errmsg=unknown PMI-2 command 'frobnicate';thrid=0x12;");
  EXPECT_EQ(Send2(s, 0, "cmd=job-getid;").reply, "cmd=job-getid-response;rc=0;jobid=psched.9.1;");

  // Answers given later carry their own request's thrid, not the last one's.
  EXPECT_TRUE(Send2(s, 1, "cmd=info-getnodeattr;thrid=0x20;key=shm;wait=TRUE;").reply.empty());
  Outcome put = Send2(s, 0, "cmd=info-putnodeattr;thrid=0x21;key=shm;value=x;");
  EXPECT_EQ(put.reply, "cmd=info-putnodeattr-response;rc=0;thrid=0x21;");
  ASSERT_EQ(put.to_others.size(), 1u);
  EXPECT_EQ(put.to_others[0].second,
            FormatMessage2("info-getnodeattr-response",
                           {{"rc", "0"}, {"found", "TRUE"}, {"value", "x"}, {"thrid", "0x20"}}));

  EXPECT_TRUE(Send2(s, 0, "cmd=kvs-fence;thrid=0x30;").reply.empty());
  // A second fence of a rank already in one is refused under its own thrid; the first
  // keeps its thrid.
  EXPECT_EQ(Send2(s, 0, "cmd=kvs-fence;thrid=0x31;").reply,
            "cmd=kvs-fence-response;rc=14;errmsg=rank 0 is already in the barrier;thrid=0x31;");
  Outcome last = Send2(s, 1, "cmd=kvs-fence;thrid=0x32;");
  ASSERT_TRUE(last.barrier_blob);
  EXPECT_EQ(s.BarrierDone(*last.barrier_blob),
            (std::vector<std::pair<int, std::string>>{
                {0, FormatMessage2("kvs-fence-response", {{"rc", "0"}, {"thrid", "0x30"}})},
                {1, FormatMessage2("kvs-fence-response", {{"rc", "0"}, {"thrid", "0x32"}})}}));
  // The next fence without a thrid is answered without one.
  (void)Send2(s, 0, "cmd=kvs-fence;");
  Outcome plain = Send2(s, 1, "cmd=kvs-fence;");
  ASSERT_TRUE(plain.barrier_blob);
  for (const auto& [rank, reply] : s.BarrierDone(*plain.barrier_blob))
    EXPECT_EQ(reply, FormatMessage2("kvs-fence-response", {{"rc", "0"}})) << rank;
}

TEST(SimpleSessionPmi2, AbortEndsTheSessionWithItsMessage) {
  SimpleSession s(TwoLocalOfFour());
  InitPmi2(s, 0);
  Outcome o = Send2(s, 0, "cmd=abort;isworld=TRUE;msg=rank 0: bad input;");
  EXPECT_TRUE(o.reply.empty());
  ASSERT_TRUE(o.abort);
  EXPECT_EQ(o.abort->first, 1);
  EXPECT_EQ(o.abort->second, "called MPI_Abort (PMI-2 abort) with status 1: rank 0: bad input");
  Outcome fin = Send2(s, 0, "cmd=finalize;");
  EXPECT_EQ(fin.reply, "cmd=finalize-response;rc=0;");
  EXPECT_TRUE(fin.finalized);
  EXPECT_TRUE(s.finalized(0));
}

TEST(SimpleSessionPmi2, BadCommandsAreAnsweredWithRcAndErrmsg) {
  SimpleSession s(TwoLocalOfFour());
  InitPmi2(s, 0);
  Outcome unknown = Send2(s, 0, "cmd=frobnicate;");
  EXPECT_EQ(unknown.reply,
            "cmd=frobnicate-response;rc=3;errmsg=unknown PMI-2 command 'frobnicate';");
  EXPECT_FALSE(unknown.problem.empty());
  EXPECT_EQ(Send2(s, 0, "cmd=name-publish;name=a;port=b;infokeycount=0;").reply,
            "cmd=name-publish-response;rc=14;errmsg='name-publish' is not served over PMI-2 by "
            "psched;");
  EXPECT_EQ(Send2(s, 0, "cmd=kvs-put;key=a;").reply,
            "cmd=kvs-put-response;rc=3;errmsg=kvs-put needs a value;");
  EXPECT_EQ(
      Send2(s, 0, "cmd=kvs-put;key=a;value=" + std::string(kPmi2ValueMax + 1, 'v') + ";").reply,
      "cmd=kvs-put-response;rc=7;errmsg=value of 1025 bytes (at most 1024);");
  Outcome malformed = Send2(s, 0, "key=a;");
  EXPECT_EQ(malformed.reply.rfind("cmd=error;rc=14;errmsg=malformed PMI-2 message", 0), 0u);
  Outcome split = s.Handle2(0, Result<std::string>(Fail(ErrorCode::kProtocol, "bad length")));
  EXPECT_EQ(split.reply, FormatMessage2("error", {{"rc", "14"}, {"errmsg", "bad length"}}));
}

}  // namespace
}  // namespace psched::pmi
