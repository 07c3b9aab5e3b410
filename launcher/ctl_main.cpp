// psched-ctl: inspect and steer the allocation's sessions.
//   status [--json] | top | kill SESSION | suspend SESSION | resume SESSION | shutdown
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "common/command_line.hpp"
#include "common/guarded_main.hpp"
#include "launcher/allocation_locator.hpp"
#include "launcher/ctl_client.hpp"
#include "launcher/ctl_top.hpp"
#include "launcher/status_format.hpp"

namespace {

int RunCommand(int argc, char** argv) {
  using namespace psched;
  CLI::App app{"psched-ctl: show and steer the sessions of the current allocation", "psched-ctl"};
  app.require_subcommand(1);
  app.footer(
      "psched-ctl talks to the daemon of the allocation psched-exec would use: the\n"
      "psched-alloc of $PSCHED_ALLOCATION, the Slurm job of $SLURM_JOB_ID, else the daemon\n"
      "of this user on this machine. When none runs it says so and exits 1; the first\n"
      "psched-exec starts one. SESSION ids are those status shows.");
  bool json = false;
  int64_t session = 0;
  auto* status = app.add_subcommand("status", "nodes, their slot map and the sessions");
  status->add_flag("--json", json, "machine-readable output");
  auto* kill = app.add_subcommand("kill", "kill a session on every node");
  auto* suspend = app.add_subcommand(
      "suspend", "stop a session's processes on every node (it keeps its slots)");
  auto* resume = app.add_subcommand("resume", "continue a session suspended by suspend or Ctrl-Z");
  // CLI::PositiveNumber's message prints the range's 300-digit upper end and accepts 0.
  const CLI::Validator session_id(
      [](const std::string& text) {
        int64_t id = 0;
        return CLI::detail::lexical_cast(text, id) && id > 0
                   ? std::string()
                   : "a session id is a positive integer (see psched-ctl status), got '" + text +
                         "'";
      },
      "ID");
  for (auto* sub : {kill, suspend, resume})
    sub->add_option("SESSION", session, "session id (see status)")->required()->check(session_id);
  auto* shutdown = app.add_subcommand("shutdown", "kill every session and stop the daemons");
  double refresh_s = 1;
  auto* top = app.add_subcommand(
      "top", "a live view of nodes, sessions and the queue; keys suspend, resume and kill");
  top->add_option("-d,--delay", refresh_s, "seconds between refreshes (default 1)")
      ->check(psched::NumberAtLeast(0.1, true));
  // CLI11 says only "A subcommand is required" for a misspelt one.
  const bool known =
      argc > 1 &&
      !app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == argv[1]; }).empty();
  if (argc > 1 && argv[1][0] != '-' && !known) {
    return UsageError("psched-ctl", std::string("unknown command '") + argv[1] +
                                        "' (valid: status, top, kill, suspend, resume, shutdown)");
  }
  if (auto code = psched::ParseCommandLine(app, "psched-ctl", argc, argv)) return *code;
  if (top->parsed()) return launcher::RunTop(refresh_s);

  launcher::AllocationSocket where;
  auto fd = launcher::ConnectToAllocation(/*start_embedded=*/false, &where);
  if (!fd) {
    std::fprintf(stderr, "psched-ctl: %s\n", launcher::NoDaemonMessage(where, fd.error()).c_str());
    return 1;
  }
  proto::MsgType type = proto::MsgType::kCtlStatus;
  if (kill->parsed()) type = proto::MsgType::kCtlKill;
  if (suspend->parsed()) type = proto::MsgType::kCtlSuspend;
  if (resume->parsed()) type = proto::MsgType::kCtlResume;
  if (shutdown->parsed()) type = proto::MsgType::kCtlShutdown;
  auto reply = launcher::CtlRequest(*fd, type, session);
  close(*fd);
  if (!reply) {
    std::fprintf(stderr, "psched-ctl: %s\n", reply.error().ToString().c_str());
    return 1;
  }
  if (!reply->ok) {
    std::fprintf(stderr, "psched-ctl: %s\n", reply->message.c_str());
    return 1;
  }
  if (status->parsed()) {
    auto report = launcher::StatusReport(std::move(*reply));
    if (!report) {
      std::fprintf(stderr, "psched-ctl: %s\n", report.error().message().c_str());
      return 1;
    }
    std::cout << (json ? proto::Json(*report).dump(2) + "\n" : launcher::FormatStatus(*report));
  } else {
    std::cout << reply->message << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return psched::GuardedMain("psched-ctl", [&] { return RunCommand(argc, argv); });
}
