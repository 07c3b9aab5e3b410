#include "pmix/name_service.hpp"

namespace psched::pmix {

std::optional<Persistence> PersistenceFromPmix(uint64_t value) {
  if (value > static_cast<uint64_t>(Persistence::kSession)) return std::nullopt;
  return static_cast<Persistence>(value);
}

std::optional<std::vector<PublishedValue>> NameService::Take(const std::vector<std::string>& keys) {
  std::vector<PublishedValue> out;
  for (const auto& k : keys) {
    auto it = values_.find(k);
    if (it == values_.end()) return std::nullopt;
    out.push_back(it->second);
  }
  for (const auto& v : out)
    if (v.persistence == Persistence::kFirstRead) values_.erase(v.key);
  return out;
}

Result<void> NameService::Publish(const Publisher& who,
                                  const std::vector<std::pair<std::string, std::string>>& kv,
                                  Persistence persistence) {
  if (kv.empty()) return Fail(ErrorCode::kInvalidArgument, "publish: no keys");
  for (const auto& [k, v] : kv) {
    if (k.empty()) return Fail(ErrorCode::kInvalidArgument, "publish: empty key");
    if (values_.contains(k)) {
      return Fail(ErrorCode::kInvalidArgument, "publish: key '" + k + "' is already published by " +
                                                   values_.at(k).publisher.nspace + ":" +
                                                   std::to_string(values_.at(k).publisher.rank));
    }
  }
  for (const auto& [k, v] : kv) values_[k] = PublishedValue{k, v, who, persistence};
  // Complete the waiting lookups whose keys are now all present, oldest first (ids
  // grow). Take first and call after: a done callback may publish or look up again.
  std::vector<std::pair<LookupDone, std::vector<PublishedValue>>> ready;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (auto found = Take(it->second.keys)) {
      ready.emplace_back(std::move(it->second.done), std::move(*found));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [done, values] : ready) done(std::move(values));
  return {};
}

std::optional<NameService::LookupId> NameService::Lookup(const Publisher& who,
                                                         const std::vector<std::string>& keys,
                                                         bool wait, LookupDone done) {
  if (keys.empty()) {
    done(Fail(ErrorCode::kInvalidArgument, "lookup: no keys"));
    return std::nullopt;
  }
  if (auto found = Take(keys)) {
    done(std::move(*found));
    return std::nullopt;
  }
  if (!wait) {
    done(Fail(ErrorCode::kNotFound, "lookup: key '" + keys.front() + "'" +
                                        (keys.size() > 1 ? " (or another)" : "") +
                                        " is not published"));
    return std::nullopt;
  }
  LookupId id = next_id_++;
  pending_[id] = Pending{who.nspace, keys, std::move(done)};
  return id;
}

Result<void> NameService::Unpublish(const Publisher& who, const std::vector<std::string>& keys) {
  if (keys.empty()) {
    std::erase_if(values_, [&](const auto& kv) { return kv.second.publisher == who; });
    return {};
  }
  for (const auto& k : keys) {
    auto it = values_.find(k);
    if (it == values_.end())
      return Fail(ErrorCode::kNotFound, "unpublish: key '" + k + "' is not published");
    if (!(it->second.publisher == who)) {
      return Fail(ErrorCode::kPermissionDenied,
                  "unpublish: key '" + k + "' belongs to " + it->second.publisher.nspace);
    }
  }
  for (const auto& k : keys) values_.erase(k);
  return {};
}

void NameService::DropNamespace(const std::string& nspace) {
  std::erase_if(values_, [&](const auto& kv) {
    const PublishedValue& v = kv.second;
    return v.publisher.nspace == nspace && v.persistence != Persistence::kIndefinite &&
           v.persistence != Persistence::kSession;
  });
  std::vector<LookupDone> orphaned;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.nspace == nspace) {
      orphaned.push_back(std::move(it->second.done));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& done : orphaned)
    done(Fail(ErrorCode::kNotFound, "lookup: session " + nspace + " ended while it waited"));
}

void NameService::Cancel(LookupId id, Error why) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return;
  auto done = std::move(it->second.done);
  pending_.erase(it);
  done(Fail(std::move(why)));
}

}  // namespace psched::pmix
