// psched-cosched: "what would the co-scheduling policies do?" Runs a script of arrivals,
// ends, rounds, user stops and lost nodes in one allocation through the leader's step function
// (scheduler/leader/replay.hpp), as pschedd decides, and prints
// every plan with the slot uses after it. Nothing is started. The policy golden tests
// (tests/golden/<policy>/<case>.events) diff its output.
#include <CLI/CLI.hpp>
#include <iostream>

#include "common/command_line.hpp"
#include "common/guarded_main.hpp"
#include "common/read_file.hpp"
#include "scheduler/leader/replay.hpp"

namespace {

int RunCommand(int argc, char** argv) {
  CLI::App app{
      "psched-cosched: runs the co-scheduling policies (wait, surpass, overbook, sidestep) over "
      "a script of session arrivals and ends in one allocation, and prints each plan and the "
      "slot uses after it (nothing is started).\n\n"
      "SCRIPT is JSON: {\"nodes\": 2, \"cores\": 4, \"events\": [{\"arrive\": 1, \"ranks\": 6, "
      "\"policy\": \"wait\"}, {\"arrive\": 2, \"ranks\": 2, \"policy\": \"sidestep\"}, "
      "{\"end\": 2}]}; optional keys: \"allocator\" (default compact), \"overbook_mode\" "
      "(pinned or float), per arrival \"threads\" and \"spread\". Other events: "
      "{\"connect\": 2, \"to\": 1}, {\"stop\": 1} and {\"resume\": 1} (the user's), "
      "{\"round\": true} (a scheduling round), {\"lose\": [1], \"cause\": \"...\"} (nodes "
      "whose daemon is gone), {\"fail\": 2, \"rank\": 1, \"code\": 3} (a rank exits non-zero), "
      "{\"kill\": 2} (psched-ctl kill); \"fails\": \"why\" on an arrival, end, stop or resume "
      "fails its plan on the nodes."};
  std::string script_path;
  app.add_option("script", script_path, "the JSON script of arrivals and ends")->required();
  app.name("psched-cosched");
  if (auto code = psched::ParseCommandLine(app, "psched-cosched", argc, argv)) return *code;
  auto text = psched::ReadWholeFile(script_path, "cannot read script " + script_path);
  if (!text) {
    std::cerr << "psched-cosched: " << text.error().ToString() << "\n";
    return 2;
  }
  auto replayed = psched::sched::leader::ReplayScript(*text, script_path);
  if (!replayed) {
    std::cerr << "psched-cosched: " << replayed.error().message() << "\n";
    return 2;
  }
  std::cout << *replayed;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return psched::GuardedMain("psched-cosched", [&] { return RunCommand(argc, argv); });
}
