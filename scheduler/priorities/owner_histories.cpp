#include "scheduler/priorities/owner_histories.hpp"

namespace psched::sched::prio {

void OwnerHistories::Submitted(SessionId id, const std::string& owner) {
  auto it = by_owner_.find(owner);
  at_submission_[id] = it == by_owner_.end() ? std::vector<FinishedJob>{} : it->second;
}

void OwnerHistories::Finished(SessionId id, const std::string& owner, double requested_s,
                              double runtime_s) {
  at_submission_.erase(id);
  std::vector<FinishedJob>& jobs = by_owner_[owner];
  jobs.push_back(FinishedJob{requested_s, runtime_s});
  if (jobs.size() > keep_) jobs.erase(jobs.begin());
}

void OwnerHistories::Forget(SessionId id) {
  at_submission_.erase(id);
}

std::span<const FinishedJob> OwnerHistories::AtSubmission(SessionId id) const {
  auto it = at_submission_.find(id);
  if (it == at_submission_.end()) return {};
  return it->second;
}

void AssignPriorities(const PriorityModule& module, const OwnerHistories& histories,
                      Snapshot& snapshot) {
  for (Session& s : snapshot.sessions) {
    if (s.state == SessionState::kQueued) {
      s.request.priority =
          module.Priority(s.request, histories.AtSubmission(s.request.id), snapshot.now);
    }
  }
}

}  // namespace psched::sched::prio
