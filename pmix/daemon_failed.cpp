// Sessions that interacted with a failed one hear of it through a PMIx event (issue
// #26, item 1): ranks of a session fail after they joined PMIx (a non-zero exit, a
// signal, MPI_Abort, an exit before MPI_Finalize, psched ending the session while they
// are in MPI), and the ranks of every session linked to it (the parent of an
// MPI_Comm_spawn, its children, the peers of MPI_Comm_connect/accept: SessionLinks) get
// PMIX_ERR_PROC_ABORTED naming the failed ranks (PmixServer::NotifyProcsFailed). Open
// MPI 4.1 aborts on it, as mpirun aborts a parent whose spawned job failed; before, a
// parent blocked in a receive from a dead child waited for ever.
//
// The failing rank's node tells the leader once per session; the leader, which sees the
// name service's lookups (NotingInteraction), takes the failed session's links and,
// when it has any, tells every node which sessions to notify: one message per node, and
// only for a failure that someone must hear of. A node notifies its local ranks of
// them.
#include <algorithm>
#include <cstdio>

#include "pmix/daemon_host.hpp"
#include "pmix/daemon_wire.hpp"

namespace psched::pmix {

void DaemonPmixHost::NoteRankFailed(int64_t session, uint32_t rank, int code, std::string why) {
  auto ns = nspaces_.find(session);
  // Once per session and node: ranks killed after the first failure add nothing.
  if (ns == nspaces_.end() || !failure_told_.insert(session).second) return;
  proto::PmixProcsFailed failed{
      .session = session, .ns = ns->second, .ranks = {rank}, .why = std::move(why), .code = code};
  if (!leader()) return tree_.SendToNode(0, "pmix.failed", proto::EncodePmix(failed));
  ProcsFailed(std::move(failed));
}

void DaemonPmixHost::OnProcsFailed(const std::string& data) {
  if (auto m = wire::Receive<proto::PmixProcsFailed>(data, "pmix.failed")) ProcsFailed(*m);
}

void DaemonPmixHost::ProcsFailed(proto::PmixProcsFailed failed) {
  if (failed.notify.empty()) {
    // The leader: whom to tell. Each failing node's word comes; the first takes the links.
    if (!leader()) return;
    failed.notify = links_.End(failed.ns);
    if (failed.notify.empty()) return;
    std::fprintf(stderr,
                 "pschedd[0]: session %ld failed (%s): telling %zu session(s) linked to it\n",
                 static_cast<long>(failed.session), failed.why.c_str(), failed.notify.size());
    const std::string bytes = proto::EncodePmix(failed);
    for (int node = 0; node < tree_.num_nodes(); ++node)
      if (node != tree_.node()) tree_.SendToNode(node, "pmix.failed", bytes);
  }
  const ProcsFailure failure{failed.ns, failed.ranks, failed.why};
  for (const auto& [session, nspace] : nspaces_) {
    if (std::find(failed.notify.begin(), failed.notify.end(), nspace) == failed.notify.end())
      continue;
    told_failed_.emplace(session,
                         ToldFailed{"session " + std::to_string(failed.session) +
                                        ", which it is connected to, failed (" + failed.why + ")",
                                    failed.code});
    server_->NotifyProcsFailed(nspace, failure);
  }
}

}  // namespace psched::pmix
