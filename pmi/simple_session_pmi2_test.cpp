// SimpleSession's PMI-2 side: what a libpmi2 client gets for each command, and that
// PMI-1 and PMI-2 ranks share one key-value space and one barrier.
#include <gtest/gtest.h>

#include "pmi/simple_session.hpp"
#include "pmi/wire2.hpp"

namespace psched::pmi {
namespace {

SimpleSessionInfo TwoLocalOfFour() {
  SimpleSessionInfo info;
  info.kvsname = "psched.9.1";
  info.size = 4;
  info.universe_size = 8;
  info.local_ranks = {0, 1};
  info.process_mapping = "(vector,(0,2,2))";
  return info;
}

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

TEST(SimpleSessionPmi2, JobAttributesCarryTheProcessMappingAndUniverse) {
  SimpleSession s(TwoLocalOfFour());
  InitPmi2(s, 0);
  EXPECT_EQ(Send2(s, 0, "cmd=info-getjobattr;key=PMI_process_mapping;").reply,
            "cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,2,2));");
  EXPECT_EQ(Send2(s, 0, "cmd=info-getjobattr;key=universeSize;").reply,
            "cmd=info-getjobattr-response;rc=0;found=TRUE;value=8;");
  EXPECT_EQ(Send2(s, 0, "cmd=info-getjobattr;key=PMI_hwloc_xmlfile;").reply,
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
