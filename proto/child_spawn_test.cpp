#include "proto/child_spawn.hpp"

#include <gtest/gtest.h>

namespace psched::proto {
namespace {

TEST(ChildApps, OneAppIsTheSessionsOwnCommandLine) {
  ChildSpawnRequest ask;
  SetChildApps(ask, {{{"./a.out", "x y"}, {"OMPI_PARENT_PORT=p"}, "/tmp", 3}});
  EXPECT_EQ(ask.argv, (std::vector<std::string>{"./a.out", "x y"}));
  EXPECT_EQ(ask.env, (std::vector<std::string>{"OMPI_PARENT_PORT=p"}));
  EXPECT_EQ(ask.cwd, "/tmp");
  EXPECT_EQ(ask.ranks, 3);
  EXPECT_TRUE(ask.app_sizes.empty());
}

TEST(ChildApps, SeveralAppsAreOneSessionWithAWrapperPerRank) {
  ChildSpawnRequest ask;
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

}  // namespace
}  // namespace psched::proto
