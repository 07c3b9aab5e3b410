// The allocation's PMIx name service (publish / lookup / unpublish).
//
// The leader daemon keeps one of these for the whole allocation so that two
// sessions started by separate psched-exec calls can find each other's ports
// (MPI_Publish_name / MPI_Lookup_name, MPI_Comm_connect / accept). A lookup
// that asks to wait stays pending until every key it names is published, or
// until the session that asked ends.
//
// Persistence follows PMIx: Open MPI publishes each side's connect/accept data
// to be deleted on first read, so that one port serves one connection after
// another (a simulation that analyses attach to in turn).
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

// How long a published value lives (PMIX_PERSISTENCE; the numbers are PMIx's).
enum class Persistence : uint8_t {
  kIndefinite = 0,   // until unpublished: outlives its publisher's session
  kFirstRead = 1,    // until one lookup has returned it
  kProcess = 2,      // until its publisher's session ends (processes end with it)
  kApplication = 3,  // until its publisher's session ends; what MPI_Publish_name asks for
  kSession = 4,      // until the allocation ends: outlives its publisher's session
};

// PMIx's number for a persistence, or nullopt when it names none.
std::optional<Persistence> PersistenceFromPmix(uint64_t value);

struct PublishedValue {
  std::string key;
  std::string value;
  Publisher publisher;
  Persistence persistence = Persistence::kApplication;
};

class NameService {
 public:
  using LookupId = uint64_t;
  // Called exactly once per lookup: with all requested values, or with an error.
  using LookupDone = std::function<void(Result<std::vector<PublishedValue>>)>;

  // Fails (state unchanged) when a key is already published: PMIx forbids duplicates.
  // Waiting lookups the new keys complete are answered in the order they were made,
  // so a first-read value goes to the earliest of them.
  Result<void> Publish(const Publisher& who,
                       const std::vector<std::pair<std::string, std::string>>& kv,
                       Persistence persistence = Persistence::kApplication);

  // Answers at once if every key is present (and deletes the first-read ones among
  // them). Otherwise: with wait=false, fails with kNotFound now; with wait=true, keeps
  // the lookup until the keys appear (returns its id so the caller can Cancel it on
  // timeout). Returns nullopt when already answered. `who` is the process asking.
  std::optional<LookupId> Lookup(const Publisher& who, const std::vector<std::string>& keys,
                                 bool wait, LookupDone done);

  // Removes the keys `who` published (all of them when `keys` is empty).
  // Unknown keys are kNotFound; keys of another publisher are kPermissionDenied.
  Result<void> Unpublish(const Publisher& who, const std::vector<std::string>& keys);

  // A session ended: forget what its processes published, except the values meant
  // to outlive it (kIndefinite, kSession), and fail its processes' waiting lookups.
  // Left pending, such a lookup would take a first-read value meant for a live
  // process (the next analysis connecting to the same port).
  void DropNamespace(const std::string& nspace);

  // Fails a pending lookup with `why` (e.g. a timeout). No-op if it already completed.
  void Cancel(LookupId id, Error why);

  size_t published_count() const { return values_.size(); }
  size_t pending_count() const { return pending_.size(); }

 private:
  struct Pending {
    std::string nspace;  // of the process that asked
    std::vector<std::string> keys;
    LookupDone done;
  };
  // All of `keys`, deleting the first-read ones; nullopt (and nothing deleted) if one
  // is missing.
  std::optional<std::vector<PublishedValue>> Take(const std::vector<std::string>& keys);

  std::map<std::string, PublishedValue> values_;
  std::map<LookupId, Pending> pending_;
  LookupId next_id_ = 1;
};

}  // namespace psched::pmix
