// The allocation's PMIx name service (publish / lookup / unpublish).
//
// The leader daemon keeps one of these for the whole allocation so that two
// sessions started by separate psched-exec calls can find each other's ports
// (MPI_Publish_name / MPI_Lookup_name, MPI_Comm_connect / accept). A lookup
// that asks to wait stays pending until every key it names is published.
//
// Pure: values are opaque bytes (value_codec.hpp packs PMIx values into them),
// the caller owns clocks and timeouts and cancels pending lookups by id.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace psched::pmix {

struct Publisher {
  std::string nspace;
  uint32_t rank = 0;
  bool operator==(const Publisher&) const = default;
};

struct PublishedValue {
  std::string key;
  std::string value;
  Publisher publisher;
};

class NameService {
 public:
  using LookupId = uint64_t;
  // Called exactly once per lookup: with all requested values, or with an error.
  using LookupDone = std::function<void(Result<std::vector<PublishedValue>>)>;

  // Fails (state unchanged) when a key is already published: PMIx forbids duplicates.
  Result<void> Publish(const Publisher& who,
                       const std::vector<std::pair<std::string, std::string>>& kv);

  // Answers at once if every key is present. Otherwise: with wait=false, fails with
  // kNotFound now; with wait=true, keeps the lookup until the keys appear (returns its
  // id so the caller can Cancel it on timeout). Returns nullopt when already answered.
  std::optional<LookupId> Lookup(const std::vector<std::string>& keys, bool wait, LookupDone done);

  // Removes the keys `who` published (all of them when `keys` is empty).
  // Unknown keys are kNotFound; keys of another publisher are kPermissionDenied.
  Result<void> Unpublish(const Publisher& who, const std::vector<std::string>& keys);

  // A session ended: forget what its processes published.
  void DropNamespace(const std::string& nspace);

  // Fails a pending lookup with `why` (e.g. a timeout). No-op if it already completed.
  void Cancel(LookupId id, Error why);

  size_t published_count() const { return values_.size(); }
  size_t pending_count() const { return pending_.size(); }

 private:
  struct Pending {
    std::vector<std::string> keys;
    LookupDone done;
  };
  std::optional<std::vector<PublishedValue>> Collect(const std::vector<std::string>& keys) const;

  std::map<std::string, PublishedValue> values_;
  std::map<LookupId, Pending> pending_;
  LookupId next_id_ = 1;
};

}  // namespace psched::pmix
