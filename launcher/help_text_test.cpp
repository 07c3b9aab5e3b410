#include "launcher/help_text.hpp"

#include <gtest/gtest.h>

namespace psched::launcher {
namespace {

TEST(HelpText, ListsEveryPolicyWithItsMeaningAndTheConfiguredDefault) {
  config::Config config = config::DefaultConfig();
  config.default_policy = "sidestep";
  config.default_allocator = "spread";
  const std::string help = PolicyAndAllocatorHelp(config);
  for (const char* line : {"  wait      queue until enough slots are free\n",
                           "  surpass   suspend the most recent running sessions",
                           "  overbook  share the least-used slots", "  sidestep  move the ranks"})
    EXPECT_NE(help.find(line), std::string::npos) << line << " in\n" << help;
  EXPECT_NE(help.find("Default here: sidestep"), std::string::npos) << help;
  EXPECT_NE(help.find("compact, spread, netload, auction, ipwindow; default here: spread\n"),
            std::string::npos)
      << help;
}

TEST(HelpText, AConfigThatCannotBeReadIsSaid) {
  const std::string help =
      PolicyAndAllocatorHelp(Fail(ErrorCode::kInvalidArgument, "psched.toml:2:11: bad"));
  EXPECT_NE(help.find("Default: cannot be told, psched.toml:2:11: bad"), std::string::npos) << help;
  EXPECT_NE(help.find("  wait "), std::string::npos);
}

TEST(HelpText, SaysWhereTheSessionRunsAndWhatTheRanksGet) {
  const std::string help = AllocationHelp();
  for (const char* word : {"PSCHED_ALLOCATION", "SLURM_JOB_ID", "started on first use",
                           "PSCHED_RANK", "PSCHED_SIZE", "PSCHED_LOCAL_RANK", "PSCHED_SESSION"})
    EXPECT_NE(help.find(word), std::string::npos) << word;
  EXPECT_TRUE(help.ends_with(".\n"));
}

}  // namespace
}  // namespace psched::launcher
