#include "proto/cosched.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>

#include "proto/checked_fields.hpp"

namespace psched::proto {

namespace {

// Integers are checked, never cast (proto/checked_fields.hpp): {"txn": 1e300} was a cast
// of a float to an integer, undefined, found by cosched_fuzz.
template <typename I>
I Integer(const Json& j, const char* key, std::optional<I> fallback = std::nullopt) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (fallback) return *fallback;
    throw std::invalid_argument(std::string("'") + key + "' is missing");
  }
  return fields::IntegerIn<I>(*it, key);
}
std::vector<int> Integers(const Json& j, const char* key) {
  std::vector<int> out;
  fields::ReadIfPresent(j, key, out);
  return out;
}

}  // namespace

void to_json(Json& j, const CoschedRank& r) {
  j = Json{{"rank", r.rank}, {"pus", r.pus}};
}
void from_json(const Json& j, CoschedRank& r) {
  r.rank = Integer<int>(j, "rank");
  r.pus = Integers(j, "pus");
}

// An op carries only what its kind uses: a resume is {"op", "session"}.
void to_json(Json& j, const CoschedOp& o) {
  j = Json{{"op", o.op}, {"session", o.session}};
  if (o.op == "suspend") {
    j["grace_s"] = o.grace_s;
    j["confirm_s"] = o.confirm_s;
  }
  if (o.op == "repin") j["ranks"] = o.ranks;
}
void from_json(const Json& j, CoschedOp& o) {
  j.at("op").get_to(o.op);
  o.session = Integer<int64_t>(j, "session");
  o.grace_s = j.value("grace_s", 0.0);
  o.confirm_s = j.value("confirm_s", 0.0);
  o.ranks = j.value("ranks", std::vector<CoschedRank>{});
}

void to_json(Json& j, const CoschedOrder& o) {
  j = Json{{"version", o.version}, {"txn", o.txn}, {"ops", o.ops}};
}
// "ops" is what makes an order: without it, it is none (a node ignores it).
void from_json(const Json& j, CoschedOrder& o) {
  o.version = Integer<int>(j, "version", kCoschedVersion);
  o.txn = Integer<int64_t>(j, "txn", int64_t{0});
  j.at("ops").get_to(o.ops);
}

void to_json(Json& j, const CoschedReply& r) {
  j = Json{{"version", r.version}, {"txn", r.txn},   {"node", r.node},
           {"ok", r.ok},           {"done", r.done}, {"error", r.error}};
}
void from_json(const Json& j, CoschedReply& r) {
  r.version = Integer<int>(j, "version", kCoschedVersion);
  r.txn = Integer<int64_t>(j, "txn", int64_t{0});
  r.node = Integer<int>(j, "node", -1);
  r.ok = j.value("ok", false);
  r.done = Integers(j, "done");
  r.error = j.value("error", std::string());
}

namespace {

template <typename T>
Result<T> DecodeCosched(std::string_view data, const char* what) {
  const Json j = Json::parse(data, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return Fail(ErrorCode::kProtocol, std::string("malformed ") + what + ": not a JSON object");
  T message;
  try {
    message = j.get<T>();
  } catch (const std::exception& e) {
    return Fail(ErrorCode::kProtocol, std::string("malformed ") + what + ": " + e.what());
  }
  if (message.version != kCoschedVersion) {
    return Fail(ErrorCode::kProtocol,
                std::string(what) + " version " + std::to_string(message.version) +
                    ", this daemon speaks version " + std::to_string(kCoschedVersion));
  }
  return message;
}

}  // namespace

std::string EncodeCoschedOrder(const CoschedOrder& order) {
  return Json(order).dump();
}
std::string EncodeCoschedReply(const CoschedReply& reply) {
  return Json(reply).dump();
}

Result<CoschedOrder> DecodeCoschedOrder(std::string_view data) {
  return DecodeCosched<CoschedOrder>(data, "cosched order");
}

Result<CoschedReply> DecodeCoschedReply(std::string_view data) {
  return DecodeCosched<CoschedReply>(data, "cosched reply");
}

}  // namespace psched::proto
