// psched-place: "what would the allocator do?" Reads a JSON snapshot of an allocation
// (nodes, links, waiting sessions), runs one named allocator over the waiting
// sessions and prints its decision as a node map or as JSON. Nothing is started.
// Golden tests (tests/golden/<allocator>/<case>.json) diff its output.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "common/command_line.hpp"
#include "common/guarded_main.hpp"
#include "common/read_file.hpp"
#include "config/load.hpp"
#include "scheduler/allocator_registry.hpp"
#include "scheduler/tools/decision_format.hpp"
#include "scheduler/tools/snapshot_json.hpp"

namespace {

using namespace psched;

int RunCommand(int argc, char** argv) {
  CLI::App app{
      "psched-place: runs an allocator over a JSON snapshot of an allocation and prints what "
      "it would decide (nothing is started)."};
  std::string snapshot_path, allocator, config_path;
  bool json = false;
  double time_limit = -1;
  std::string names;
  for (const std::string& n : sched::AllocatorNames()) names += (names.empty() ? "" : ", ") + n;
  app.add_option("snapshot", snapshot_path, "JSON snapshot (nodes, links, waiting sessions)")
      ->required();
  app.add_option("-a,--allocator", allocator, "allocator: " + names + " (default: the config's)");
  app.add_option("-c,--config", config_path,
                 "psched TOML config for weights, windows and limits (default: built-in "
                 "defaults, the papers' values)");
  app.add_flag("--json", json, "print the decision as JSON instead of a node map");
  app.add_option("--time-limit", time_limit, "solver time limit in seconds (auction, ipwindow)")
      ->check(psched::Positive());
  app.name("psched-place");
  app.footer(
      "SNAPSHOT is JSON: the allocation's nodes (PUs, load, memory), its links, and\n"
      "the sessions waiting to be placed; tests/golden/<allocator>/*.json are examples:\n"
      "  psched-place -a netload tests/golden/netload/two_groups.json\n\n"
      "Exit status: 0 the decision was printed; 1 the snapshot or config could not be\n"
      "read or is invalid (the message names the file and the JSON path); 2 a bad option.");
  if (auto code = psched::ParseCommandLine(app, "psched-place", argc, argv)) return *code;

  config::Config config = config::DefaultConfig();
  if (!config_path.empty()) {
    auto loaded = config::LoadConfigFile(config_path);
    if (!loaded) {
      std::cerr << "psched-place: " << loaded.error().ToString() << "\n";
      return 1;
    }
    config = std::move(*loaded);
  }
  if (allocator.empty()) allocator = config.default_allocator;
  if (time_limit > 0) {
    config.allocators.auction.time_limit_s = time_limit;
    config.allocators.ipwindow.time_limit_s = time_limit;
  }
  auto alloc = sched::MakeAllocator(allocator, config.allocators);
  if (!alloc) {
    std::cerr << "psched-place: --allocator: " << alloc.error().message() << "\n";
    return 1;
  }
  auto text = ReadWholeFile(snapshot_path, "cannot read snapshot " + snapshot_path);
  if (!text) {
    std::cerr << "psched-place: " << text.error().ToString() << "\n";
    return 1;
  }
  auto input = sched::place::ParseSnapshot(*text, snapshot_path);
  if (!input) {
    std::cerr << "psched-place: " << input.error().message() << "\n";
    return 1;
  }
  std::vector<sched::Assignment> decision = (*alloc)->Allocate(input->snapshot, input->waiting);
  std::cout << (json ? sched::place::FormatJson(*input, allocator, decision)
                     : sched::place::FormatText(*input, allocator, decision));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return psched::GuardedMain("psched-place", [&] { return RunCommand(argc, argv); });
}
