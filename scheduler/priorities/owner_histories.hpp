// Who finished what, and what each waiting session's owner had finished when it
// arrived: PSP fixes a session's accuracy group at submission ("for each newly
// arrived job ... the last ten completed jobs"), so jobs ending later must not move
// it. Kept by the daemon's leader; AssignPriorities orders a snapshot's queue with it.
#pragma once

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/model.hpp"
#include "scheduler/priorities/priority.hpp"

namespace psched::sched::prio {

class OwnerHistories {
 public:
  // Keeps each owner's last `keep` finished jobs (PSP reads the last 10 by default).
  explicit OwnerHistories(size_t keep = 64) : keep_(keep) {}

  // Session `id` of `owner` arrives: remember the owner's history as it is now.
  void Submitted(SessionId id, const std::string& owner);
  // Session `id` ended after running `runtime_s` with estimate `requested_s`.
  void Finished(SessionId id, const std::string& owner, double requested_s, double runtime_s);
  // Session `id` left without running (dropped, refused): no history entry.
  void Forget(SessionId id);
  // The owner's finished jobs as at the session's submission, oldest first.
  std::span<const FinishedJob> AtSubmission(SessionId id) const;
  // Sessions whose history at submission is kept: submitted, neither finished nor forgotten.
  size_t Submissions() const { return at_submission_.size(); }

 private:
  size_t keep_;
  std::unordered_map<std::string, std::vector<FinishedJob>> by_owner_;
  std::unordered_map<SessionId, std::vector<FinishedJob>> at_submission_;
};

// Sets request.priority of every queued session of `snapshot` (at snapshot.now).
void AssignPriorities(const PriorityModule& module, const OwnerHistories& histories,
                      Snapshot& snapshot);

}  // namespace psched::sched::prio
