#include "pmix/name_service.hpp"

namespace psched::pmix {

std::optional<std::vector<PublishedValue>> NameService::Collect(
    const std::vector<std::string>& keys) const {
  std::vector<PublishedValue> out;
  for (const auto& k : keys) {
    auto it = values_.find(k);
    if (it == values_.end()) return std::nullopt;
    out.push_back(it->second);
  }
  return out;
}

Result<void> NameService::Publish(const Publisher& who,
                                  const std::vector<std::pair<std::string, std::string>>& kv) {
  if (kv.empty()) return Fail(ErrorCode::kInvalidArgument, "publish: no keys");
  for (const auto& [k, v] : kv) {
    if (k.empty()) return Fail(ErrorCode::kInvalidArgument, "publish: empty key");
    if (values_.contains(k)) {
      return Fail(ErrorCode::kInvalidArgument, "publish: key '" + k + "' is already published by " +
                                                   values_.at(k).publisher.nspace + ":" +
                                                   std::to_string(values_.at(k).publisher.rank));
    }
  }
  for (const auto& [k, v] : kv) values_[k] = PublishedValue{k, v, who};
  // Complete the waiting lookups whose keys are now all present. Collect first and call
  // after: a done callback may publish or look up again.
  std::vector<std::pair<LookupDone, std::vector<PublishedValue>>> ready;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (auto found = Collect(it->second.keys)) {
      ready.emplace_back(std::move(it->second.done), std::move(*found));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [done, values] : ready) done(std::move(values));
  return {};
}

std::optional<NameService::LookupId> NameService::Lookup(const std::vector<std::string>& keys,
                                                         bool wait, LookupDone done) {
  if (keys.empty()) {
    done(Fail(ErrorCode::kInvalidArgument, "lookup: no keys"));
    return std::nullopt;
  }
  if (auto found = Collect(keys)) {
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
  pending_[id] = Pending{keys, std::move(done)};
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
  std::erase_if(values_, [&](const auto& kv) { return kv.second.publisher.nspace == nspace; });
}

void NameService::Cancel(LookupId id, Error why) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return;
  auto done = std::move(it->second.done);
  pending_.erase(it);
  done(Fail(std::move(why)));
}

}  // namespace psched::pmix
