// What one psched-djsb run measured: plain values shared by the orchestrator and the
// report writers (which are pure: results in, text out).
#pragma once

#include <string>
#include <vector>

#include <optional>

#include "djsb/config.hpp"
#include "djsb/interaction.hpp"
#include "djsb/metrics.hpp"

namespace psched::djsb {

// A session's state over a stretch of time, seconds relative to the run's start.
// States: "waiting" (submitted, not begun), "running", "suspended", "sidestepped",
// "overbooked" (sharing its slots with another running session).
struct StateInterval {
  double t0 = 0;
  double t1 = 0;
  std::string state;
};

// One session of one run: the simulation ("sim") or an analysis ("ana0", "ana1", ...).
struct SessionRecord {
  std::string name;
  std::string tag;         // passed to psched-stream --tag; finds its processes in /proc
  RunTimes times;          // wall clock
  std::vector<int> nodes;  // nodes it ran on (from psched-ctl or the env)
  std::vector<StateInterval> timeline;  // relative to the run's start
  bool observed_stopped = false;        // some sample saw every process in state T
  std::string output_path;
  std::vector<double> iterations;                // wall clock at which each iteration completed
  std::optional<InteractionRecord> interaction;  // an analysis of the interactive djsb
};

// One repeat of one scenario (or of a reference run).
struct ScenarioRun {
  std::string scenario;
  int repeat = 0;
  double start = 0;                     // wall clock of the simulation's submit
  std::vector<SessionRecord> sessions;  // sim first
  std::string state_source;             // "psched-ctl", "/proc" or "begin/end"
};

struct ScenarioResult {
  Scenario scenario;
  std::string family;  // "psched" or the baseline's name: whose reference runs it uses
  std::vector<ScenarioRun> runs;
  std::vector<RunMetrics> metrics;
  Summary summary;
  InteractionSummary interaction;  // the interactive djsb: over every analysis and repeat
  std::string skipped;  // why it did not run (e.g. psched-exec missing); empty when it ran
};

// The reference runs of one launcher family, their medians, and the constants they give.
struct FamilyReferences {
  std::string family;
  References refs;
  ResolvedConstants constants;
  std::vector<ScenarioRun> sim_alone;
  std::vector<ScenarioRun> ana_alone;
};

struct DjsbResults {
  DjsbConfig config;  // as run: iterations after the calibration
  // Not empty when the simulation's slots outnumber the real PUs (--allow-folded): says
  // so, and that no figure measures policy effects. Every writer shows it.
  std::string folded;
  std::string calibration;    // how the iterations were chosen (sim_target_s), or empty
  std::string stopped_early;  // why the repeats ended before every interval was tight
  // How the repeats beyond the minimum were spent (repeat_rule.hpp): "repeating only X and
  // Y for the verdict: ...", and how that race ended; empty when it never began.
  std::string racing;
  // The interactive djsb: whose name service each launcher family used (or why none).
  std::vector<std::string> name_services;
  std::vector<double> launch_fractions;
  std::vector<FamilyReferences> references;
  std::vector<ScenarioResult> scenarios;
  std::string host;
  double started = 0;  // wall clock
  double finished = 0;
};

}  // namespace psched::djsb
