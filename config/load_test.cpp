#include "config/load.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "config/show.hpp"

namespace psched::config {
namespace {

class LoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("psched_config_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(LoadTest, SystemThenUserFile) {
  ConfigPaths paths{Write("etc.toml", "[policy]\ndefault = \"surpass\"\nbackfill = true\n"),
                    Write("user.toml", "[policy]\ndefault = \"sidestep\"\n")};
  auto c = LoadConfig(paths);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->default_policy, "sidestep");
  EXPECT_TRUE(c->policy_options.backfill);
  EXPECT_EQ(c->sources.size(), 2u);
}

TEST_F(LoadTest, MissingSystemFileIsFineMissingUserFileIsNot) {
  ConfigPaths paths{(dir_ / "absent.toml").string(), ""};
  auto c = LoadConfig(paths);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->sources.empty());
  paths.user = (dir_ / "also-absent.toml").string();
  c = LoadConfig(paths);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code(), ErrorCode::kSystem);
  EXPECT_NE(c.error().ToString().find("$PSCHED_CONF: cannot read config file"), std::string::npos)
      << c.error().ToString();
}

TEST_F(LoadTest, ErrorsNameTheFile) {
  std::string bad = Write("bad.toml", "\n[policy]\nbackfill = 3\n");
  auto c = LoadConfigFile(bad);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), bad + ":3:12: policy.backfill: expected true or false");
}

TEST_F(LoadTest, EnvironmentNamesTheUserFile) {
  ::setenv("PSCHED_CONF", "/some/where.toml", 1);
  EXPECT_EQ(ConfigPathsFromEnvironment().user, "/some/where.toml");
  ::unsetenv("PSCHED_CONF");
  EXPECT_EQ(ConfigPathsFromEnvironment().user, "");
  EXPECT_EQ(ConfigPathsFromEnvironment().system, "/etc/psched/psched.toml");
}

TEST_F(LoadTest, ShowOutputReadsBackToTheSameConfig) {
  auto c = ParseConfig(
      "[policy]\ndefault = \"overbook\"\nallowed = [\"overbook\"]\noverbook_mode = \"float\"\n"
      "suspend = \"freezer\"\nplan_timeout_s = 42.5\nsuspend_confirm_timeout_s = 7\n"
      "[allocator.netload]\nalpha = 0.25\n[priority]\nmodule = \"psp\"\n",
      "a.toml");
  ASSERT_TRUE(c);
  std::string shown = ToToml(*c);
  auto back = ParseConfig(shown, "shown.toml");
  ASSERT_TRUE(back) << back.error().message() << "\n" << shown;
  EXPECT_EQ(back->default_policy, "overbook");
  EXPECT_EQ(back->allowed_policies, std::vector<std::string>{"overbook"});
  EXPECT_EQ(back->policy_options.overbook_mode, policies::OverbookMode::kFloat);
  EXPECT_EQ(back->suspend, SuspendMethod::kFreezer);
  EXPECT_DOUBLE_EQ(back->plan_timeout_s, 42.5);
  EXPECT_DOUBLE_EQ(back->suspend_confirm_timeout_s, 7);
  EXPECT_DOUBLE_EQ(back->allocators.netload.alpha, 0.25);
  EXPECT_EQ(back->priority.name, "psp");
  EXPECT_NE(shown.find("# effective psched configuration, from: a.toml"), std::string::npos);
}

}  // namespace
}  // namespace psched::config
