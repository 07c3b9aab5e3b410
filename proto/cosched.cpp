#include "proto/cosched.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>

namespace psched::proto {

namespace {

// An integer field as an integer of its type: nlohmann converts a JSON float to an
// integer with a cast, undefined beyond the type's range ({"txn": 1e300} in cosched_fuzz),
// so a float, or an integer the type cannot hold, is an error naming the field.
template <typename I>
I IntegerIn(const Json& v, const std::string& what) {
  if (!v.is_number_integer()) throw std::invalid_argument(what + " is not an integer");
  const bool fits = v.is_number_unsigned()
                        ? v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<I>::max())
                        : v.get<int64_t>() >= std::numeric_limits<I>::min() &&
                              v.get<int64_t>() <= std::numeric_limits<I>::max();
  if (!fits) throw std::invalid_argument(what + " is out of range: " + v.dump());
  return v.is_number_unsigned() ? static_cast<I>(v.get<uint64_t>())
                                : static_cast<I>(v.get<int64_t>());
}
template <typename I>
I Integer(const Json& j, const char* key, std::optional<I> fallback = std::nullopt) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (fallback) return *fallback;
    throw std::invalid_argument(std::string("'") + key + "' is missing");
  }
  return IntegerIn<I>(*it, std::string("'") + key + "'");
}
std::vector<int> Integers(const Json& j, const char* key) {
  std::vector<int> out;
  auto it = j.find(key);
  if (it == j.end()) return out;
  if (!it->is_array()) throw std::invalid_argument(std::string("'") + key + "' is not a list");
  for (const Json& v : *it)
    out.push_back(IntegerIn<int>(v, std::string("an item of '") + key + "'"));
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
