#include <gtest/gtest.h>

#include "config/config.hpp"
#include "config/load.hpp"

namespace psched::config {
namespace {

std::string ErrorOf(std::string_view text) {
  auto c = ParseConfig(text, "t.toml");
  if (c) return "accepted";
  EXPECT_EQ(c.error().code(), ErrorCode::kInvalidArgument);
  return c.error().message();
}

TEST(ParseConfig, EmptyTextGivesTheDefaults) {
  auto c = ParseConfig("", "t.toml");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->default_policy, "wait");
  EXPECT_TRUE(c->allowed_policies.empty());  // all
  EXPECT_EQ(c->policy_options.overbook_mode, policies::OverbookMode::kPinned);
  EXPECT_FALSE(c->policy_options.backfill);
  EXPECT_EQ(c->suspend, SuspendMethod::kSignal);
  EXPECT_DOUBLE_EQ(c->plan_timeout_s, 10);
  EXPECT_DOUBLE_EQ(c->suspend_confirm_timeout_s, 5);
  EXPECT_DOUBLE_EQ(c->policy_options.max_overbook_factor, 64);
  EXPECT_DOUBLE_EQ(c->embedded_idle_exit_s, 600);
  EXPECT_EQ(c->default_allocator, "compact");
  EXPECT_EQ(c->priority.name, "fcfs");
  EXPECT_EQ(c->sources, std::vector<std::string>{"t.toml"});
}

TEST(ParseConfig, ReadsEveryKey) {
  auto c = ParseConfig(R"(
[policy]
default = "overbook"
allowed = ["overbook", "wait"]
spread_allowed = false
overbook_mode = "float"
surpass_grace_s = 2.5
backfill = true
suspend = "freezer"
plan_timeout_s = 30
suspend_confirm_timeout_s = 12.5
max_overbook_factor = 2.5
[daemon]
embedded_idle_exit_s = 30
[allocator]
default = "spread"
allowed = ["spread"]
[allocator.netload]
alpha = 0.4
beta = 0.6
w_latency = 1
[allocator.auction]
window = 20
time_limit_s = 3
baseline_bids = false
bid_cap_cut = 2
[allocator.ipwindow]
window = 7
[priority]
module = "psp+aging"
aging_step_s = 60
history_length = 5
multifactor_age_weight = 2.5
multifactor_size_weight = 0
multifactor_max_age_s = 86400
)",
                       "t.toml");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->default_policy, "overbook");
  EXPECT_EQ(c->allowed_policies, (std::vector<std::string>{"overbook", "wait"}));
  EXPECT_FALSE(c->spread_allowed);
  EXPECT_EQ(c->policy_options.overbook_mode, policies::OverbookMode::kFloat);
  EXPECT_DOUBLE_EQ(c->policy_options.surpass_grace_s, 2.5);
  EXPECT_TRUE(c->policy_options.backfill);
  EXPECT_EQ(c->suspend, SuspendMethod::kFreezer);
  EXPECT_DOUBLE_EQ(c->plan_timeout_s, 30);
  EXPECT_DOUBLE_EQ(c->suspend_confirm_timeout_s, 12.5);
  EXPECT_DOUBLE_EQ(c->policy_options.max_overbook_factor, 2.5);
  EXPECT_DOUBLE_EQ(c->embedded_idle_exit_s, 30);
  EXPECT_EQ(c->default_allocator, "spread");
  EXPECT_DOUBLE_EQ(c->allocators.netload.alpha, 0.4);
  EXPECT_DOUBLE_EQ(c->allocators.netload.w_latency, 1.0);
  EXPECT_EQ(c->allocators.auction.window, 20);
  EXPECT_DOUBLE_EQ(c->allocators.auction.time_limit_s, 3.0);
  EXPECT_FALSE(c->allocators.auction.baseline_bids);
  EXPECT_DOUBLE_EQ(c->allocators.auction.bid_cap_cut, 2.0);
  EXPECT_EQ(c->allocators.ipwindow.window, 7);
  EXPECT_EQ(c->priority.name, "psp+aging");
  EXPECT_DOUBLE_EQ(c->priority.aging_step_s, 60);
  EXPECT_EQ(c->priority.history_length, 5);
  EXPECT_DOUBLE_EQ(c->priority.multifactor_age_weight, 2.5);
  EXPECT_DOUBLE_EQ(c->priority.multifactor_size_weight, 0);
  EXPECT_DOUBLE_EQ(c->priority.multifactor_max_age_s, 86400);
}

TEST(ParseConfig, TheExampleFileIsValid) {
  auto c = LoadConfigFile(PSCHED_CONFIG_EXAMPLE);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->default_policy, "wait");
  EXPECT_EQ(c->allowed_policies.size(), 4u);
  // The example shows the built-in defaults.
  EXPECT_DOUBLE_EQ(c->plan_timeout_s, kDefaultPlanTimeoutS);
  EXPECT_DOUBLE_EQ(c->suspend_confirm_timeout_s, kDefaultSuspendConfirmTimeoutS);
  EXPECT_EQ(c->default_mpi, "auto");
}

TEST(ParseConfig, LaunchMpiNamesTheDefaultWireUp) {
  auto c = ParseConfig("[launch]\nmpi = \"pmi1\"\n", "t.toml");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->default_mpi, "pmi1");
}

TEST(ParseConfig, LaunchKillWaitIsTheGraceBeforeSigkill) {
  EXPECT_DOUBLE_EQ(DefaultConfig().kill_wait_s, 1);  // mpirun's
  auto c = ParseConfig("[launch]\nkill_wait_s = 2.5\n", "t.toml");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_DOUBLE_EQ(c->kill_wait_s, 2.5);
  auto none = ParseConfig("[launch]\nkill_wait_s = 0\n", "t.toml");
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_DOUBLE_EQ(none->kill_wait_s, 0);
}

TEST(ParseConfig, LaterFileOverridesKeyByKey) {
  auto base = ParseConfig("[policy]\nbackfill = true\ndefault = \"surpass\"\n", "etc.toml");
  ASSERT_TRUE(base);
  auto c = ParseConfig("[policy]\ndefault = \"overbook\"\n", "user.toml", *base);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->default_policy, "overbook");
  EXPECT_TRUE(c->policy_options.backfill);  // kept from the first file
  EXPECT_EQ(c->sources, (std::vector<std::string>{"etc.toml", "user.toml"}));
}

// One test per rejected config: each names the file, line and column.
TEST(RejectedConfig, UnknownMpiWireUp) {
  EXPECT_EQ(
      ErrorOf("[launch]\nmpi = \"pmi3\"\n"),
      "t.toml:2:7: launch.mpi: unknown MPI wire-up 'pmi3' (valid: auto, pmix, pmi1, pmi2, none)");
}

TEST(RejectedConfig, KillWaitOutOfRange) {
  EXPECT_EQ(ErrorOf("[launch]\nkill_wait_s = -1\n"),
            "t.toml:2:15: launch.kill_wait_s: must be seconds between 0 and 3600, got -1");
  EXPECT_EQ(ErrorOf("[launch]\nkill_wait_s = 3601\n"),
            "t.toml:2:15: launch.kill_wait_s: must be seconds between 0 and 3600, got 3601");
  EXPECT_EQ(ErrorOf("[launch]\nkill_wait_s = \"1s\"\n"),
            "t.toml:2:15: launch.kill_wait_s: expected a number (seconds between 0 and 3600)");
}

TEST(RejectedConfig, ForbiddenDefaultPolicy) {
  EXPECT_EQ(ErrorOf("[policy]\nallowed = [\"wait\", \"surpass\"]\ndefault = \"sidestep\"\n"),
            "t.toml:3:11: default policy 'sidestep' is not in the allowed list (wait, surpass)");
}

TEST(RejectedConfig, LaterFileForbidsTheEarlierDefault) {
  auto base = ParseConfig("[policy]\ndefault = \"sidestep\"\n", "etc.toml");
  ASSERT_TRUE(base);
  auto c = ParseConfig("[policy]\nallowed = [\"wait\"]\n", "user.toml", *base);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(),
            "user.toml:2:11: default policy 'sidestep' is not in the allowed list (wait)");
}

TEST(RejectedConfig, UnknownPolicyName) {
  EXPECT_EQ(ErrorOf("[policy]\ndefault = \"nonsense\"\n"),
            "t.toml:2:11: policy.default: unknown policy 'nonsense' (valid: wait, surpass, "
            "overbook, sidestep)");
}

TEST(RejectedConfig, UnknownPolicyInAllowedList) {
  EXPECT_EQ(ErrorOf("[policy]\nallowed = [\"wait\", \"gang\"]\n"),
            "t.toml:2:11: policy.allowed: unknown policy 'gang' (valid: wait, surpass, "
            "overbook, sidestep)");
}

TEST(RejectedConfig, EmptyAllowedList) {
  EXPECT_EQ(ErrorOf("[policy]\nallowed = []\n"),
            "t.toml:2:11: policy.allowed: must allow at least one policy");
}

TEST(RejectedConfig, DuplicateInAllowedList) {
  EXPECT_EQ(ErrorOf("[policy]\nallowed = [\"wait\", \"wait\"]\n"),
            "t.toml:2:11: policy.allowed: policy 'wait' is listed twice");
}

TEST(RejectedConfig, MalformedToml) {
  std::string e = ErrorOf("[policy]\ndefault = \"wait\nbackfill = true\n");
  EXPECT_EQ(e.rfind("t.toml:2:", 0), 0u) << e;
  EXPECT_NE(e.find("malformed TOML"), std::string::npos) << e;
}

TEST(RejectedConfig, UnknownKey) {
  EXPECT_EQ(ErrorOf("[policy]\nbackfil = true\n"),
            "t.toml:2:1: unknown key 'policy.backfil' in [policy] (valid: default, allowed, "
            "spread_allowed, overbook_mode, surpass_grace_s, backfill, max_overbook_factor, "
            "plan_timeout_s, "
            "suspend_confirm_timeout_s, suspend)");
}

TEST(RejectedConfig, UnknownTopLevelTable) {
  std::string e = ErrorOf("[policies]\ndefault = \"wait\"\n");
  EXPECT_EQ(e.rfind("t.toml:1:2: unknown key 'policies' at the top level (valid: [policy], "
                    "[allocator], [priority], [launch], [daemon])",
                    0),
            0u)
      << e;
}

TEST(RejectedConfig, SectionThatIsNotATable) {
  EXPECT_EQ(ErrorOf("policy = \"wait\"\n"), "t.toml:1:10: 'policy' must be a table ([policy])");
}

TEST(RejectedConfig, BadOverbookMode) {
  EXPECT_EQ(ErrorOf("[policy]\noverbook_mode = \"loose\"\n"),
            "t.toml:2:17: policy.overbook_mode: expected \"pinned\" or \"float\"");
}

TEST(RejectedConfig, BadSuspendMethod) {
  EXPECT_EQ(ErrorOf("[policy]\nsuspend = \"cgroup\"\n"),
            "t.toml:2:11: policy.suspend: expected \"signal\" or \"freezer\"");
  EXPECT_EQ(ErrorOf("[policy]\nsuspend = true\n"),
            "t.toml:2:11: policy.suspend: expected \"signal\" or \"freezer\"");
}

TEST(RejectedConfig, OverbookFactorOutOfRange) {
  for (const char* v : {"0.5", "65", "nan", "\"big\""}) {
    EXPECT_NE(ErrorOf(std::string("[policy]\nmax_overbook_factor = ") + v)
                  .find("policy.max_overbook_factor"),
              std::string::npos)
        << v;
  }
  EXPECT_EQ(ErrorOf("[policy]\nmax_overbook_factor = 1"), "accepted");
}

TEST(RejectedConfig, NegativeGraceTime) {
  EXPECT_EQ(ErrorOf("[policy]\nsurpass_grace_s = -1\n"),
            "t.toml:2:19: policy.surpass_grace_s: must be seconds >= 0, got -1");
}

TEST(ParseConfig, PlanTimeouts) {
  auto c =
      ParseConfig("[policy]\nplan_timeout_s = 45\nsuspend_confirm_timeout_s = 0.5\n", "t.toml");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_DOUBLE_EQ(c->plan_timeout_s, 45);
  EXPECT_DOUBLE_EQ(c->suspend_confirm_timeout_s, 0.5);
  // One alone keeps the other's value (here the default).
  auto only = ParseConfig("[policy]\nplan_timeout_s = 6.5\n", "t.toml");
  ASSERT_TRUE(only) << only.error().message();
  EXPECT_DOUBLE_EQ(only->plan_timeout_s, 6.5);
  EXPECT_DOUBLE_EQ(only->suspend_confirm_timeout_s, 5);
}

TEST(RejectedConfig, PlanTimeoutMustBePositiveFiniteSeconds) {
  EXPECT_EQ(ErrorOf("[policy]\nplan_timeout_s = 0\n"),
            "t.toml:2:18: policy.plan_timeout_s: must be seconds >= 0.001, got 0");
  EXPECT_EQ(ErrorOf("[policy]\nplan_timeout_s = -3\n"),
            "t.toml:2:18: policy.plan_timeout_s: must be seconds >= 0.001, got -3");
  EXPECT_EQ(ErrorOf("[policy]\nplan_timeout_s = \"10\"\n"),
            "t.toml:2:18: policy.plan_timeout_s: expected a number (seconds >= 0.001)");
  EXPECT_EQ(ErrorOf("[policy]\nplan_timeout_s = nan\n"),
            "t.toml:2:18: policy.plan_timeout_s: must be seconds >= 0.001, got nan");
  EXPECT_EQ(ErrorOf("[policy]\nplan_timeout_s = inf\n"),
            "t.toml:2:18: policy.plan_timeout_s: must be seconds >= 0.001, got inf");
}

TEST(RejectedConfig, SuspendConfirmTimeoutMustBePositiveFiniteSeconds) {
  EXPECT_EQ(ErrorOf("[policy]\nsuspend_confirm_timeout_s = 0\n"),
            "t.toml:2:29: policy.suspend_confirm_timeout_s: must be seconds >= 0.001, got 0");
  EXPECT_EQ(ErrorOf("[policy]\nsuspend_confirm_timeout_s = -0.5\n"),
            "t.toml:2:29: policy.suspend_confirm_timeout_s: must be seconds >= 0.001, got -0.5");
  EXPECT_EQ(ErrorOf("[policy]\nsuspend_confirm_timeout_s = \"5s\"\n"),
            "t.toml:2:29: policy.suspend_confirm_timeout_s: expected a number (seconds >= 0.001)");
  EXPECT_EQ(ErrorOf("[policy]\nsuspend_confirm_timeout_s = -nan\n"),
            "t.toml:2:29: policy.suspend_confirm_timeout_s: must be seconds >= 0.001, got nan");
  EXPECT_EQ(ErrorOf("[policy]\nsuspend_confirm_timeout_s = true\n"),
            "t.toml:2:29: policy.suspend_confirm_timeout_s: expected a number (seconds >= 0.001)");
}

TEST(RejectedConfig, NotANumberIsRejectedForEveryNumericKey) {
  EXPECT_EQ(ErrorOf("[allocator]\nround_interval_s = nan\n"),
            "t.toml:2:20: allocator.round_interval_s: must be seconds >= 0.001, got nan");
  EXPECT_EQ(ErrorOf("[policy]\nsurpass_grace_s = inf\n"),
            "t.toml:2:19: policy.surpass_grace_s: must be seconds >= 0, got inf");
  EXPECT_EQ(ErrorOf("[allocator.netload]\nalpha = nan\n"),
            "t.toml:2:9: allocator.netload.alpha: must be a weight between 0 and 1, got nan");
}

TEST(RejectedConfig, PlanTimeoutMustOutlastTheSuspendConfirmation) {
  EXPECT_EQ(ErrorOf("[policy]\nplan_timeout_s = 5\n"),
            "t.toml:2:18: policy.plan_timeout_s (5) must be longer than "
            "policy.suspend_confirm_timeout_s (5): the leader would give up on a node before "
            "the node could say which process did not stop");
  EXPECT_EQ(ErrorOf("[policy]\nsuspend_confirm_timeout_s = 12\n"),
            "t.toml:2:29: policy.plan_timeout_s (10) must be longer than "
            "policy.suspend_confirm_timeout_s (12): the leader would give up on a node before "
            "the node could say which process did not stop");
  // A bad value is reported once, not compared against the value it did not replace.
  EXPECT_EQ(ErrorOf("[policy]\nplan_timeout_s = 3\nsuspend_confirm_timeout_s = 0\n"),
            "t.toml:3:29: policy.suspend_confirm_timeout_s: must be seconds >= 0.001, got 0");
}

TEST(RejectedConfig, LaterFileShortensThePlanTimeoutBelowTheEarlierConfirmation) {
  auto base =
      ParseConfig("[policy]\nplan_timeout_s = 60\nsuspend_confirm_timeout_s = 30\n", "etc.toml");
  ASSERT_TRUE(base) << base.error().message();
  auto c = ParseConfig("[policy]\nplan_timeout_s = 20\n", "user.toml", *base);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(),
            "user.toml:2:18: policy.plan_timeout_s (20) must be longer than "
            "policy.suspend_confirm_timeout_s (30): the leader would give up on a node before "
            "the node could say which process did not stop");
}

TEST(ParseConfig, RoundInterval) {
  auto c = ParseConfig("[allocator]\nround_interval_s = 2.5\n", "t.toml");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_DOUBLE_EQ(c->round_interval_s, 2.5);
  EXPECT_DOUBLE_EQ(DefaultConfig().round_interval_s, 10);
}

TEST(RejectedConfig, ZeroRoundInterval) {
  EXPECT_EQ(ErrorOf("[allocator]\nround_interval_s = 0\n"),
            "t.toml:2:20: allocator.round_interval_s: must be seconds >= 0.001, got 0");
}

TEST(RejectedConfig, ZeroAgingStep) {
  EXPECT_EQ(ErrorOf("[priority]\naging_step_s = 0\n"),
            "t.toml:2:16: priority.aging_step_s: must be seconds >= 0.001, got 0");
  // Not zero but no timer either: a round every 1e-7 s would be a busy loop.
  EXPECT_EQ(ErrorOf("[allocator]\nround_interval_s = 1e-7\n"),
            "t.toml:2:20: allocator.round_interval_s: must be seconds >= 0.001, got 1e-07");
  EXPECT_EQ(ErrorOf("[priority]\nmultifactor_age_weight = -1\n"),
            "t.toml:2:26: priority.multifactor_age_weight: must be a weight >= 0, got -1");
  EXPECT_EQ(ErrorOf("[priority]\nmultifactor_size_weight = inf\n"),
            "t.toml:2:27: priority.multifactor_size_weight: must be a weight >= 0, got inf");
  EXPECT_EQ(ErrorOf("[priority]\nmultifactor_max_age_s = -5\n"),
            "t.toml:2:25: priority.multifactor_max_age_s: must be seconds >= 0, got -5");
}

TEST(RejectedConfig, WeightOutOfRange) {
  EXPECT_EQ(ErrorOf("[allocator.netload]\nalpha = 1.5\n"),
            "t.toml:2:9: allocator.netload.alpha: must be a weight between 0 and 1, got 1.5");
  EXPECT_EQ(ErrorOf("[allocator.netload]\nw_cpu_load = -0.1\n"),
            "t.toml:2:14: allocator.netload.w_cpu_load: must be a weight between 0 and 1, got "
            "-0.1");
}

TEST(RejectedConfig, WrongType) {
  EXPECT_EQ(ErrorOf("[policy]\nbackfill = \"yes\"\n"),
            "t.toml:2:12: policy.backfill: expected true or false");
  EXPECT_EQ(ErrorOf("[allocator.auction]\nwindow = 2.5\n"),
            "t.toml:2:10: allocator.auction.window: expected an integer >= 1");
}

TEST(RejectedConfig, ZeroWindow) {
  EXPECT_EQ(ErrorOf("[allocator.ipwindow]\nwindow = 0\n"),
            "t.toml:2:10: allocator.ipwindow.window: must be an integer between 1 and 1000000, "
            "got 0");
}

TEST(RejectedConfig, BidCapCutMustShrinkTheCap) {
  EXPECT_EQ(ErrorOf("[allocator.auction]\nbid_cap_cut = 1\n"),
            "t.toml:2:15: allocator.auction.bid_cap_cut: must be a factor > 1 and <= 100, got 1");
}

TEST(RejectedConfig, UnknownAllocator) {
  EXPECT_EQ(
      ErrorOf("[allocator]\ndefault = \"random\"\n")
          .rfind(
              "t.toml:2:11: allocator.default: unknown allocator 'random' (valid: compact, spread",
              0),
      0u);
}

TEST(RejectedConfig, UnknownPriorityModule) {
  EXPECT_EQ(ErrorOf("[priority]\nmodule = \"lifo\"\n"),
            "t.toml:2:10: priority.module: unknown priority module 'lifo' (valid: fcfs, psp, "
            "psp+aging, multifactor)");
}

TEST(RejectedConfig, EveryProblemIsReportedOnItsOwnLine) {
  EXPECT_EQ(ErrorOf("[policy]\nbackfill = 1\nsurpass_grace_s = -1\n"),
            "t.toml:2:12: policy.backfill: expected true or false\n"
            "t.toml:3:19: policy.surpass_grace_s: must be seconds >= 0, got -1");
}

// A newline inside a key, a name or the text toml++ stopped at is written as an escape:
// each problem stays on its own line (config_fuzz found toml++ quoting the newline after
// "tru" as it is, which split the error in two).
TEST(RejectedConfig, ControlCharactersInTheTextDoNotSplitAnError) {
  EXPECT_EQ(ErrorOf("[policy]\nbackfill = tru\n"),
            "t.toml:2:15: malformed TOML: Error while parsing boolean: expected 'true', saw "
            "'tru\\n'");
  EXPECT_EQ(ErrorOf("[policy]\n\"back\\nfill\" = true\n"),
            "t.toml:2:1: unknown key 'policy.back\\nfill' in [policy] (valid: default, allowed, "
            "spread_allowed, overbook_mode, surpass_grace_s, backfill, max_overbook_factor, "
            "plan_timeout_s, suspend_confirm_timeout_s, suspend)");
  EXPECT_EQ(ErrorOf("[priority]\nmodule = \"fcfs\\u0001\"\n"),
            "t.toml:2:10: priority.module: unknown priority module 'fcfs\\x01' (valid: fcfs, "
            "psp, psp+aging, multifactor)");
}

// Debian's toml++ 3.3 has undefined behaviour on some non-ASCII characters where it looks
// for whitespace (config_fuzz, UBSan: "execution reached an unreachable program point" in
// is_non_ascii_horizontal_whitespace, on U+02BC in a key): psched takes non-ASCII text on
// comment lines only, and says where it found it otherwise, before toml++ reads any.
TEST(RejectedConfig, NonAsciiTextOutsideACommentLine) {
  const std::string why =
      "a non-ASCII character outside a comment line: psched's keys and names are ASCII; write "
      "other text in a comment on a line of its own";
  EXPECT_EQ(ErrorOf("[policy]\nback\xca\xbc = true\n"), "t.toml:2:5: " + why);
  EXPECT_EQ(ErrorOf("[policy]\ndefault = \"wait\"  # f\xc3\xbcr alle\n"), "t.toml:2:22: " + why);
  EXPECT_EQ(ErrorOf("[policy]\ndefault = \"w\xc3\xa4it\"\n"), "t.toml:2:13: " + why);
  auto c = ParseConfig(
      "# f\xc3\xbcr alle \xe2\x80\x94 Gr\xc3\xbc\xc3\x9f\n  [policy]  \n\t# \xc3\xa9\n"
      "default = \"sidestep\"\n",
      "t.toml");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->default_policy, "sidestep");
}

}  // namespace
}  // namespace psched::config
