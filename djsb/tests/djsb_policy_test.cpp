// A short djsb on an emulated allocation (psched-alloc), checking what the policies do to
// real processes:
//   surpass: while the analysis runs, the simulation's processes are in state T in /proc;
//   wait:    the analysis's recorded wait covers the simulation's remaining time.
// These need psched-alloc and psched-exec built beside psched-djsb; they fail (not skip)
// with a message naming what is missing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::djsb {
namespace {

using psched::testing::Bin;
using psched::testing::RunShell;
using psched::testing::TempDir;

bool RequireTools() {
  for (const char* tool : {"psched-alloc", "psched-exec"}) {
    if (access(Bin(tool).c_str(), X_OK) != 0) {
      ADD_FAILURE() << tool << " is not built: " << Bin(tool)
                    << ": the djsb policy tests need the launcher (launcher/) and daemon (daemon/)";
      return false;
    }
  }
  return true;
}

// Runs one policy on an emulated 2-node allocation of 2 slots each: the simulation takes
// all 4 slots, the analysis 2, submitted once the simulation completed `at` of its
// iterations. 4 slots fold onto a 2-core machine (--allow-folded): these tests check what
// the policies do to the processes, not how fast anything runs.
nlohmann::json RunPolicy(const std::string& policy, const std::string& dir, int iterations = 16,
                         double at = 0.3) {
  std::string cmd = Bin("psched-alloc") + " -N 2 --topology 'pack:1 core:2 pu:1' -- " +
                    Bin("psched-djsb") + " --policies " + policy +
                    " --no-spread --no-baseline --require-psched --repeats 1 --allow-folded"
                    " --sim-ranks 4 --sim-threads 1 --sim-size 4000000"
                    " --ana-ranks 2 --ana-threads 1 --ana-size 2000000 --iterations " +
                    std::to_string(iterations) + " --at " + std::to_string(at) +
                    " --timeout 240 -o " + dir + " 2>&1";
  auto r = RunShell(cmd, {}, /*seconds=*/280);  // under the test's 300 s: a loaded machine
  EXPECT_EQ(r.code, 0) << cmd << "\n" << r.out;
  std::ifstream in(dir + "/djsb.json");
  if (!in.good()) {
    ADD_FAILURE() << "no " << dir << "/djsb.json; output:\n" << r.out;
    return {};
  }
  return nlohmann::json::parse(in, nullptr, false);
}

const nlohmann::json* FindSession(const nlohmann::json& j, const std::string& name) {
  if (!j.contains("scenarios") || j["scenarios"].empty()) return nullptr;
  const auto& scenario = j["scenarios"][0];
  if (!scenario.contains("runs") || scenario["runs"].empty()) return nullptr;
  for (const auto& s : scenario["runs"][0]["sessions"])
    if (s["name"] == name) return &s;
  return nullptr;
}

TEST(DjsbPolicies, SurpassStopsTheSimulationWhileTheAnalysisRuns) {
  if (!RequireTools()) return;
  TempDir dir("djsb-surpass");
  // The analysis is submitted once the simulation reported a tenth of its iterations, so it
  // arrives while the simulation computes however the load changes.
  auto j = RunPolicy("surpass", dir.path(), 48, 0.1);
  const nlohmann::json* sim = FindSession(j, "sim");
  const nlohmann::json* ana = FindSession(j, "ana0");
  ASSERT_NE(sim, nullptr) << j.dump(2);
  ASSERT_NE(ana, nullptr);
  EXPECT_EQ((*sim)["observed_stopped"], true) << "no sample saw the simulation in state T";
  // The suspended stretch lies inside the analysis's run (relative to the run's start).
  const double start = j["scenarios"][0]["runs"][0]["start"];
  const double ana_begin = (*ana)["times"]["begin"].get<double>() - start;
  const double ana_end = (*ana)["times"]["end"].get<double>() - start;
  const double sim_begin = (*sim)["times"]["begin"].get<double>() - start;
  // The premise of the check: the analysis arrived before the simulation ended, and ran
  // while it was computing.
  const double sim_end = (*sim)["times"]["end"].get<double>() - start;
  const double ana_submit = (*ana)["times"]["submit"].get<double>() - start;
  ASSERT_LT(ana_submit, sim_end) << "the analysis arrived (+" << ana_submit
                                 << " s) after the simulation ended (+" << sim_end << " s)";
  ASSERT_GT(ana_end, sim_begin) << "the analysis ended (+" << ana_end
                                << " s) before the simulation began computing (+" << sim_begin
                                << " s): the schedule is too tight for this machine";
  bool suspended_during_ana = false;
  for (const auto& iv : (*sim)["timeline"]) {
    if (iv["state"] != "suspended") continue;
    double t0 = iv["t0"], t1 = iv["t1"];
    EXPECT_GT(t1, ana_begin - 0.5) << "suspended before the analysis began";
    EXPECT_LT(t0, ana_end + 0.5) << "suspended after the analysis ended";
    if (t0 < ana_end && t1 > ana_begin) suspended_during_ana = true;
  }
  EXPECT_TRUE(suspended_during_ana) << (*sim)["timeline"].dump();
  // And it was resumed: the simulation finished after the analysis.
  EXPECT_GT((*sim)["times"]["end"].get<double>(), (*ana)["times"]["end"].get<double>());
}

TEST(DjsbPolicies, WaitMakesTheAnalysisWaitForTheSimulation) {
  if (!RequireTools()) return;
  TempDir dir("djsb-wait");
  // As for surpass: submitted once the simulation reported a tenth of 48 iterations, so it
  // arrives while the simulation computes even on an idle machine where an iteration takes
  // a few milliseconds (16 iterations at 0.3 let the simulation end first there).
  auto j = RunPolicy("wait", dir.path(), 48, 0.1);
  const nlohmann::json* sim = FindSession(j, "sim");
  const nlohmann::json* ana = FindSession(j, "ana0");
  ASSERT_NE(sim, nullptr) << j.dump(2);
  ASSERT_NE(ana, nullptr);
  const double sim_end = (*sim)["times"]["end"];
  const double ana_submit = (*ana)["times"]["submit"];
  const double ana_begin = (*ana)["times"]["begin"];
  EXPECT_LT(ana_submit, sim_end) << "the analysis was submitted after the simulation ended";
  // Its wait covers the simulation's remaining time: it began only after the simulation ended.
  EXPECT_GE(ana_begin - ana_submit, sim_end - ana_submit);
  EXPECT_FALSE((*sim)["observed_stopped"].get<bool>()) << "wait must not stop the simulation";
  EXPECT_LT(j["scenarios"][0]["median"]["w_ana"].get<double>(), 1.0);
}

// The interactive djsb (issue #20): the analysis pulls slices from the running simulation
// through MPI. Under surpass it suspends the simulation, then looks up its port: the leader
// resumes the simulation sidestepped onto the other PU (policies/yield.hpp) and every pull
// is answered; without that the analysis would wait on stopped ranks until the timeout.
// Under wait the analysis starts once the simulation has ended: no pull can complete, and
// the report says why. One node of 2 PUs: the simulation has a PU to move to.
TEST(DjsbPolicies, InteractiveSurpassYieldsAndEveryPullCompletes) {
  if (!RequireTools()) return;
  TempDir dir("djsb-interactive");
  std::string cmd = Bin("psched-alloc") + " -N 1 --topology 'pack:1 core:2 pu:1' -- " +
                    Bin("psched-djsb") +
                    " --policies surpass,wait --no-spread --no-baseline --require-psched"
                    " --repeats 1 --sim-ranks 2 --sim-threads 1 --sim-size 4000000"
                    " --ana-ranks 1 --ana-threads 1 --ana-size 1000000 --iterations 48"
                    " --at 0.1 --pulls 3 --timeout 120 -o " +
                    dir.path() + " 2>&1";
  auto r = RunShell(cmd, {}, /*seconds=*/280);
  EXPECT_EQ(r.code, 0) << cmd << "\n" << r.out;
  std::ifstream in(dir.path() + "/djsb.json");
  ASSERT_TRUE(in.good()) << r.out;
  auto j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_EQ(j["scenarios"].size(), 2u) << j.dump(2);
  const auto& surpass = j["scenarios"][0];
  const auto& wait = j["scenarios"][1];
  ASSERT_EQ(surpass["name"], "surpass");
  ASSERT_TRUE(surpass.contains("interaction")) << surpass.dump(2);
  EXPECT_EQ(surpass["interaction"]["completed"], 3) << surpass["interaction"].dump();
  EXPECT_EQ(surpass["interaction"]["all_completed"], true);
  const double p95 = surpass["interaction"]["p95_s"];
  EXPECT_GT(p95, 0);
  EXPECT_LT(p95, 60);
  // The simulation was suspended, then ran sidestepped beside the analysis.
  std::set<std::string> states;
  for (const auto& s : surpass["runs"][0]["sessions"]) {
    if (s["name"] != "sim") continue;
    for (const auto& iv : s["timeline"]) states.insert(iv["state"].get<std::string>());
  }
  EXPECT_TRUE(states.contains("sidestepped")) << surpass["runs"][0].dump(2);
  EXPECT_EQ(wait["interaction"]["completed"], 0) << wait.dump(2);
  EXPECT_NE(wait["interaction"].value("error", "").find("no simulation serves"), std::string::npos)
      << wait["interaction"].dump();
  EXPECT_NE(r.out.find("every interaction completed under: surpass"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace psched::djsb
