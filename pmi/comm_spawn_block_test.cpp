#include "pmi/comm_spawn_block.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace psched::pmi {
namespace {

// Feeds the lines of `text` (as MPICH's client writes them) and returns the reader's
// answer after the last one (nullopt: it still waits).
std::optional<Result<SpawnRequest>> Feed(SpawnReader& reader, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::optional<Result<SpawnRequest>> out;
  while (std::getline(in, line)) {
    EXPECT_FALSE(out.has_value()) << "answered before the line '" << line << "'";
    out = reader.Add(line);
  }
  return out;
}

std::string Block(int sofar, int total, const std::string& nprocs = "2") {
  return "mcmd=spawn\nnprocs=" + nprocs + "\nexecname=./child\ntotspawns=" + std::to_string(total) +
         "\nspawnssofar=" + std::to_string(sofar) +
         "\narg1=a b=c\narg2=-x\nargcnt=2\npreput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\n"
         "preput_val_0=tag#0$port#1$\ninfo_num=1\ninfo_key_0=wdir\ninfo_val_0=/tmp\nendcmd\n";
}

TEST(SpawnReader, OneBlockIsOneRequestWithArgsPreputAndInfo) {
  SpawnReader reader;
  EXPECT_TRUE(SpawnReader::Opens("mcmd=spawn"));
  EXPECT_FALSE(SpawnReader::Opens("cmd=spawn"));
  auto done = Feed(reader, Block(1, 1));
  ASSERT_TRUE(done.has_value());
  ASSERT_TRUE(*done) << done->error().message();
  const SpawnRequest& r = **done;
  ASSERT_EQ(r.apps.size(), 1u);
  EXPECT_EQ(r.apps[0].nprocs, 2);
  EXPECT_EQ(r.apps[0].execname, "./child");
  // An argument is the rest of its line: spaces and '=' included.
  EXPECT_EQ(r.apps[0].args, (std::vector<std::string>{"a b=c", "-x"}));
  EXPECT_EQ(r.preput, (KeyValues{{"PARENT_ROOT_PORT_NAME", "tag#0$port#1$"}}));
  EXPECT_EQ(r.apps[0].Info("wdir"), "/tmp");
  EXPECT_FALSE(reader.open());
}

TEST(SpawnReader, SpawnMultipleAnswersAfterTheLastBlock) {
  SpawnReader reader;
  EXPECT_FALSE(Feed(reader, Block(1, 2)).has_value());
  auto done = Feed(reader, Block(2, 2, "3"));
  ASSERT_TRUE(done.has_value());
  ASSERT_TRUE(*done);
  ASSERT_EQ((*done)->apps.size(), 2u);
  EXPECT_EQ((*done)->apps[1].nprocs, 3);
}

// A bad block is answered once, after the last block of the spawn, so the client (which
// reads one spawn_result) and the server stay in step.
TEST(SpawnReader, ABadBlockIsAnsweredOnceAfterTheLast) {
  SpawnReader reader;
  EXPECT_FALSE(Feed(reader, Block(1, 2, "none")).has_value());
  auto done = Feed(reader, Block(2, 2));
  ASSERT_TRUE(done.has_value());
  ASSERT_FALSE(*done);
  EXPECT_NE(done->error().message().find("nprocs=none is not a count"), std::string::npos)
      << done->error().message();
  // The reader is ready for the next spawn.
  auto next = Feed(reader, Block(1, 1));
  ASSERT_TRUE(next.has_value());
  EXPECT_TRUE(*next);
}

TEST(SpawnReader, SaysWhatIsWrong) {
  auto problem = [](const std::string& text) {
    SpawnReader reader;
    auto done = Feed(reader, text);
    if (!done.has_value()) return std::string("no answer");
    return *done ? std::string("accepted") : done->error().message();
  };
  EXPECT_NE(problem("mcmd=spawn\nnprocs=1\ntotspawns=1\nspawnssofar=1\nargcnt=0\n"
                    "preput_num=0\ninfo_num=0\nendcmd\n")
                .find("no execname="),
            std::string::npos);
  EXPECT_NE(problem("mcmd=spawn\nnprocs=0\nexecname=x\ntotspawns=1\nspawnssofar=1\nargcnt=0\n"
                    "preput_num=0\ninfo_num=0\nendcmd\n")
                .find("nprocs=0"),
            std::string::npos);
  EXPECT_NE(problem("mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=1\nspawnssofar=1\nargcnt=2\n"
                    "arg1=y\npreput_num=0\ninfo_num=0\nendcmd\n")
                .find("no arg2="),
            std::string::npos);
  EXPECT_NE(problem("mcmd=spawn\nnprocs=1\nnprocs=2\nendcmd\n").find("given twice"),
            std::string::npos);
  EXPECT_NE(problem("mcmd=spawn\nnot a pair\nnprocs=1\nexecname=x\ntotspawns=1\nspawnssofar=1\n"
                    "argcnt=0\npreput_num=0\ninfo_num=0\nendcmd\n")
                .find("not key=value"),
            std::string::npos);
  EXPECT_NE(problem("mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=2\nspawnssofar=2\nargcnt=0\n"
                    "preput_num=0\ninfo_num=0\nendcmd\n")
                .find("block 2 of 2 after 0"),
            std::string::npos);
}

}  // namespace
}  // namespace psched::pmi
