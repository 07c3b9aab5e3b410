// PmixHostServices for an allocation of one node: fences are complete once the
// local blob is in, the name service is local, nothing is remote.
//
// Used by a daemon that runs alone (no allocation) and by the PMIx test host.
// What a daemon does with processes (kill on abort, suspend for job control)
// stays with the caller, through Hooks.
#pragma once

#include <functional>
#include <map>
#include <memory>

#include "pmix/host_services.hpp"
#include "pmix/name_service.hpp"

struct event;
struct event_base;

namespace psched::pmix {

class LocalHostServices : public PmixHostServices {
 public:
  struct Hooks {
    std::function<void(int64_t session, uint32_t rank)> client_connected;
    std::function<void(int64_t session, uint32_t rank)> client_finalized;
    std::function<void(int64_t session, uint32_t rank, int status, const std::string& msg)> abort;
    std::function<Result<void>(const JobControlRequest&)> job_control;
    // Starts spawned ranks in free slots; unset: every spawn is refused.
    std::function<void(SpawnRequest, std::function<void(Result<std::string>)>)> spawn;
  };

  // `base` runs lookup timeouts; it must outlive this object.
  LocalHostServices(event_base* base, Hooks hooks) : base_(base), hooks_(std::move(hooks)) {}
  ~LocalHostServices() override;

  void ClientConnected(int64_t session, uint32_t rank) override;
  void ClientFinalized(int64_t session, uint32_t rank) override;
  void AbortSession(int64_t session, uint32_t rank, int status, std::string message) override;
  void FenceAcrossNodes(FenceRequest req, BlobDone done) override;
  void DirectModexRemote(ProcName proc, int node, BlobDone done) override;
  void Publish(Publisher who, std::vector<std::pair<std::string, std::string>> kv,
               Persistence persistence, OpDone done) override;
  void Lookup(Publisher who, std::vector<std::string> keys, bool wait,
              std::optional<std::chrono::milliseconds> timeout,
              NameService::LookupDone done) override;
  void Unpublish(Publisher who, std::vector<std::string> keys, OpDone done) override;
  void Spawn(SpawnRequest req, std::function<void(Result<std::string>)> done) override;
  void Connect(std::vector<ProcName> procs, OpDone done) override;
  void Disconnect(std::vector<ProcName> procs, OpDone done) override;
  void JobControl(JobControlRequest req, OpDone done) override;

  NameService& names() { return names_; }
  int fences_seen() const { return fences_seen_; }

 private:
  struct Timer;
  static void OnLookupTimeout(int fd, short what, void* arg);

  event_base* base_;
  Hooks hooks_;
  NameService names_;
  std::map<NameService::LookupId, event*> lookup_timers_;
  int fences_seen_ = 0;
};

}  // namespace psched::pmix
