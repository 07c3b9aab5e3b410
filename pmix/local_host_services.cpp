#include "pmix/local_host_services.hpp"

#include <event2/event.h>

namespace psched::pmix {

struct LocalHostServices::Timer {
  LocalHostServices* self;
  NameService::LookupId id;
};

LocalHostServices::~LocalHostServices() {
  for (auto& [id, ev] : lookup_timers_) {
    delete static_cast<Timer*>(event_get_callback_arg(ev));
    event_free(ev);
  }
}

void LocalHostServices::ClientConnected(int64_t session, uint32_t rank) {
  if (hooks_.client_connected) hooks_.client_connected(session, rank);
}

void LocalHostServices::ClientFinalized(int64_t session, uint32_t rank) {
  if (hooks_.client_finalized) hooks_.client_finalized(session, rank);
}

void LocalHostServices::AbortSession(int64_t session, uint32_t rank, int status,
                                     std::string message) {
  if (hooks_.abort) hooks_.abort(session, rank, status, message);
}

void LocalHostServices::FenceAcrossNodes(FenceRequest req, BlobDone done) {
  // One node: this daemon's blob is already the concatenation of all of them.
  ++fences_seen_;
  done(req.collect_data ? std::move(req.local_data) : Blob());
}

void LocalHostServices::DirectModexRemote(ProcName proc, int node, BlobDone done) {
  done(Fail(ErrorCode::kNotFound, "direct modex for " + proc.nspace + ":" +
                                      std::to_string(proc.rank) + " on node " +
                                      std::to_string(node) + ": no other node in this allocation"));
}

void LocalHostServices::Publish(Publisher who, std::vector<std::pair<std::string, std::string>> kv,
                                Persistence persistence, OpDone done) {
  done(names_.Publish(who, kv, persistence));
}

void LocalHostServices::Lookup(Publisher who, std::vector<std::string> keys, bool wait,
                               std::optional<std::chrono::milliseconds> timeout,
                               NameService::LookupDone done) {
  // The pending lookup's callback must drop its timer when the keys arrive first.
  auto id_slot = std::make_shared<NameService::LookupId>(0);
  auto wrapped = [this, id_slot, done = std::move(done)](Result<std::vector<PublishedValue>> r) {
    if (auto it = lookup_timers_.find(*id_slot); *id_slot != 0 && it != lookup_timers_.end()) {
      delete static_cast<Timer*>(event_get_callback_arg(it->second));
      event_free(it->second);
      lookup_timers_.erase(it);
    }
    done(std::move(r));
  };
  auto id = names_.Lookup(who, keys, wait, std::move(wrapped));
  if (!id || !timeout) return;
  *id_slot = *id;
  auto* t = new Timer{this, *id};
  event* ev = evtimer_new(base_, &LocalHostServices::OnLookupTimeout, t);
  timeval tv{static_cast<time_t>(timeout->count() / 1000),
             static_cast<suseconds_t>((timeout->count() % 1000) * 1000)};
  evtimer_add(ev, &tv);
  lookup_timers_[*id] = ev;
}

void LocalHostServices::OnLookupTimeout(int, short, void* arg) {
  auto* t = static_cast<Timer*>(arg);
  // Cancel runs the wrapped callback, which frees this timer and its event.
  t->self->names_.Cancel(t->id, Error(ErrorCode::kTimeout, "lookup: keys not published in time"));
}

void LocalHostServices::Unpublish(Publisher who, std::vector<std::string> keys, OpDone done) {
  done(names_.Unpublish(who, keys));
}

void LocalHostServices::Spawn(SpawnRequest req, std::function<void(Result<std::string>)> done) {
  if (hooks_.spawn) {
    hooks_.spawn(std::move(req), std::move(done));
    return;
  }
  int procs = 0;
  for (const auto& a : req.apps) procs += a.max_procs;
  done(Fail(Error(ErrorCode::kResourceExhausted,
                  "MPI_Comm_spawn of " + std::to_string(procs) +
                      " process(es) refused: no free slots in this allocation and no "
                      "co-scheduling policy to make room")
                .WithSession(req.parent_session)));
}

void LocalHostServices::Connect(std::vector<ProcName>, OpDone done) {
  // Every participant is on this node, and PMIx already holds their namespaces.
  done({});
}

void LocalHostServices::Disconnect(std::vector<ProcName>, OpDone done) {
  done({});
}

void LocalHostServices::JobControl(JobControlRequest req, OpDone done) {
  if (!hooks_.job_control) {
    done(Fail(ErrorCode::kInvalidArgument, "job control is not available on this host"));
    return;
  }
  done(hooks_.job_control(req));
}

}  // namespace psched::pmix
