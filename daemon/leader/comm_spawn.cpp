// LeaderService's MPI_Comm_spawn side, apart from leader_service.cpp: children are a
// session without a launcher of their own. They are decided like any arrival (the
// leader's one arrival path, sched::leader::Step, with the parent's co-scheduling
// policy and allocator, and the parent's rules added), so a full
// allocation queues them under wait, suspends others under surpass, and a refusal
// fails the parent's spawn with the reason. Their output and failures go to the
// parent's launcher, labelled; they are killed when the parent session ends.
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "common/exec_args.hpp"
#include "common/prefix_lines.hpp"
#include "daemon/leader/leader_service.hpp"
#include "scheduler/leader/failure_report.hpp"

namespace psched::daemon {

void LeaderService::OnCommSpawnRequest(int from, const std::string& data) {
  if (executor_.busy())
    return deferred_.push_back([this, from, data] { OnCommSpawnRequest(from, data); });
  auto decoded = proto::DecodeCommSpawnRequest(data);
  if (!decoded) {
    std::fprintf(stderr, "pschedd[0]: %s from node %d dropped\n", decoded.error().message().c_str(),
                 from);
    return;
  }
  const proto::CommSpawnRequest& ask = *decoded;
  auto refuse = [&](const std::string& why) {
    proto::CommSpawnReply reply{.request = ask.request,
                                .message = "MPI_Comm_spawn of " + std::to_string(ask.ranks) +
                                           " process(es) from session " +
                                           std::to_string(ask.parent_session) + " refused: " + why};
    SendCommSpawnReply(from, ask.reply_service, reply);
    // The user sees why, not only the MPI error class the parent gets.
    if (LiveSession* p = Find(ask.parent_session)) {
      if (auto c = p->launcher.lock()) {
        c->Send(proto::Encode(proto::MsgType::kIoOutput,
                              proto::Output{p->id, 0, 2, "psched: " + reply.message + "\n"}));
      }
    }
  };
  LiveSession* parent = Find(ask.parent_session);
  if (parent == nullptr || Failing(parent->id)) return refuse("the parent session is ending");
  if (auto bad = proto::CommSpawnProblem(ask, parent->ranks)) return refuse(*bad);
  // Decided as any arrival (scheduler/leader/step.hpp), with the parent's policy and
  // allocator, its owner and estimate.
  const sched::leader::Session* model = Model(parent->id);
  if (model == nullptr) return refuse("the parent session is ending");
  sched::leader::Arrival arrival;
  arrival.policy = model->policy;
  arrival.parent = parent->id;
  sched::SessionRequest& children = arrival.request;
  children.owner = parent->owner;
  children.command = CommandLine(ask.argv);
  children.ranks = ask.ranks;
  children.threads_per_rank = 1;
  children.estimate_s = parent->request.estimate_s;
  children.allocator = model->allocator;
  metrics_.ApplyTo(state_.snapshot, /*links=*/true);
  sched::leader::Outcome decided = Step(arrival);
  if (decided.refused) return refuse(*decided.refused);
  RegisterChild(decided.request, ask, *parent, from);
  Execute(decided.plan, arrival.policy.options.surpass_grace_s);
}

void LeaderService::RegisterChild(const sched::SessionRequest& request,
                                  const proto::CommSpawnRequest& ask, const LiveSession& parent,
                                  int from) {
  LiveSession& child = sessions_[request.id];
  child.id = request.id;
  child.owner = request.owner;
  child.command = request.command;
  child.ranks = request.ranks;
  child.start = state_.snapshot.now;
  child.request.argv = ask.argv;
  // The parent's environment, then what Open MPI added for the children (OMPI_PARENT_PORT).
  child.request.env = parent.request.env;
  child.request.env.insert(child.request.env.end(), ask.env.begin(), ask.env.end());
  child.request.cwd = ask.cwd.empty() ? parent.request.cwd : ask.cwd;
  child.request.owner = request.owner;
  child.request.ranks = ask.ranks;
  child.request.policy = request.policy;
  child.request.allocator = request.allocator;
  child.request.stdout_pty = parent.request.stdout_pty;  // they write to its launcher
  child.parent_nspace = ask.parent_nspace;
  child.parent_rank = ask.parent_rank;
  child.app_sizes = ask.app_sizes;
  child.comm_spawn_node = from;
  child.comm_spawn_request = ask.request;
  child.comm_spawn_reply_service = ask.reply_service;
}

void LeaderService::AnswerCommSpawn(LiveSession& child, bool ok, const std::string& message,
                                    int64_t parent) {
  if (parent == sched::kNoSession) parent = ParentOf(child);
  if (parent == 0 || child.comm_spawn_request == 0) return;
  proto::CommSpawnReply reply;
  reply.request = child.comm_spawn_request;
  reply.ok = ok;
  reply.session = child.id;
  // The nspace LeaderService::StartRanks gave the children's StartRanksOrder.
  reply.nspace = "psched." + std::to_string(getpid()) + "." + std::to_string(child.id);
  if (!ok) {
    reply.message = "MPI_Comm_spawn from session " + std::to_string(parent) +
                    ": children session " + std::to_string(child.id) + " " + message;
  }
  if (ok) child.launched_comm_spawn_request = child.comm_spawn_request;
  child.comm_spawn_request = 0;
  SendCommSpawnReply(child.comm_spawn_node, child.comm_spawn_reply_service, reply);
}

void LeaderService::SendCommSpawnReply(int node, const std::string& service,
                                       const proto::CommSpawnReply& reply) {
  peers_.Send({node}, proto::MsgType::kPeerSend,
              proto::Json(proto::PeerSend{service, proto::EncodePmix(reply)}));
}

void LeaderService::ForwardChildOutput(LiveSession& child, proto::Output out) {
  LiveSession* parent = Find(ParentOf(child));
  if (parent == nullptr) return;
  auto c = parent->launcher.lock();
  if (!c) return;
  // Labelled, so the parent's launcher tells the children's lines from its own ranks'.
  std::string prefix =
      "[spawned " + std::to_string(child.id) + ":" + std::to_string(out.rank) + "] ";
  out.session = parent->id;
  out.data = PrefixLines(prefix, out.data);
  c->Send(proto::Encode(proto::MsgType::kIoOutput, out));
  HoldOutputIfBacklogged(child, *c);
}

void LeaderService::NoteToParent(const LiveSession& child, const std::string& text) {
  LiveSession* parent = Find(ParentOf(child));
  if (parent == nullptr) return;
  if (auto c = parent->launcher.lock()) {
    c->Send(proto::Encode(
        proto::MsgType::kIoOutput,
        proto::Output{parent->id, 0, 2,
                      "psched: session " + std::to_string(child.id) +
                          " (MPI_Comm_spawn from session " + std::to_string(parent->id) + " rank " +
                          std::to_string(child.parent_rank) + ") " + text + "\n"}));
  }
}

void LeaderService::ChildEnded(LiveSession& child) {
  if (ParentOf(child) == 0) return;
  AnswerCommSpawn(child, false, "ended before it was launched");
  const sched::leader::Session* model = Model(child.id);
  if (model == nullptr || !model->failure) return;
  NoteToParent(child, "failed: " + sched::leader::FailureText(state_, *model));
  if (child.launched_comm_spawn_request == 0) return;
  // Launched, then failed: the parent may still wait for them to connect (Open MPI's
  // waits 600 s). Told as a second answer to the same request; the asking node knows
  // whether anybody still waits.
  child.comm_spawn_request = child.launched_comm_spawn_request;
  child.launched_comm_spawn_request = 0;
  AnswerCommSpawn(child, false, "failed: " + model->failure->first);
}

}  // namespace psched::daemon
