// Reads the fields of one JSON object, each error naming the JSON path
// ("nodes[2].pus: expected an integer in [1, 1048576], got -3"). Header-only: the
// input-file readers of psched-place (scheduler/tools/snapshot_json), psched-cosched
// (scheduler/leader/replay) and psched-sim's allocation spec (scheduler/sim/allocation_spec)
// share it; the caller adds the file's name.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"

// PSCHED_TRY(x, reader.Int(...)): declares `x` as the value of a Result, or returns its
// error from the enclosing function (which returns a Result). `var` names a
// declaration, it cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define PSCHED_TRY(var, expr)                 \
  auto var##_r = (expr);                      \
  if (!var##_r) return Fail(var##_r.error()); \
  auto var = *var##_r
// NOLINTEND(bugprone-macro-parentheses)

namespace psched {

// A whole JSON document, or "not valid JSON: line 3, column 5: syntax error while parsing
// object - unexpected '}'; expected string literal": where and what, as nlohmann says it
// without its "[json.exception.parse_error.101] parse error at " (a number too large for a
// double is its out_of_range error, said the same way).
inline Result<nlohmann::json> ParseJsonDocument(std::string_view text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    if (const size_t tag_end = what.find("] "); tag_end != std::string::npos)
      what.erase(0, tag_end + 2);
    constexpr std::string_view kParseErrorAt = "parse error at ";
    if (what.starts_with(kParseErrorAt)) what.erase(0, kParseErrorAt.size());
    return Fail(ErrorCode::kInvalidArgument, "not valid JSON: " + what);
  }
}

// Reads the fields of one JSON object, each error naming the JSON path.
class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& object, std::string path)
      : object_(object), path_(std::move(path)) {}

  Result<void> CheckObject() const {
    if (!object_.is_object())
      return Fail(ErrorCode::kInvalidArgument, Where("") + "expected an object");
    return {};
  }
  Result<void> OnlyKeys(std::initializer_list<std::string_view> keys) const {
    for (const auto& [key, value] : object_.items()) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end())
        return Fail(ErrorCode::kInvalidArgument, Where(key) + "unknown key");
    }
    return {};
  }
  bool Has(std::string_view key) const { return object_.contains(key); }

  Result<long> Int(std::string_view key, long min, long max, std::optional<long> fallback) const {
    if (!Has(key)) {
      if (fallback) return *fallback;
      return Fail(ErrorCode::kInvalidArgument, Where(key) + "missing (required)");
    }
    const nlohmann::json& v = object_.at(std::string(key));
    if (!v.is_number_integer())
      return Fail(ErrorCode::kInvalidArgument, Where(key) + "expected an integer, got " + Shown(v));
    long x = v.get<long>();
    if (x < min || x > max) {
      return Fail(ErrorCode::kInvalidArgument,
                  Where(key) + "expected an integer " + Range(min, max) + ", got " + v.dump());
    }
    return x;
  }
  Result<double> Number(std::string_view key, double min, double fallback) const {
    if (!Has(key)) return fallback;
    const nlohmann::json& v = object_.at(std::string(key));
    if (!v.is_number())
      return Fail(ErrorCode::kInvalidArgument, Where(key) + "expected a number, got " + Shown(v));
    double x = v.get<double>();
    if (x < min) {
      return Fail(
          ErrorCode::kInvalidArgument,
          Where(key) + "expected a number >= " + nlohmann::json(min).dump() + ", got " + v.dump());
    }
    return x;
  }
  Result<bool> Bool(std::string_view key, bool fallback) const {
    if (!Has(key)) return fallback;
    const nlohmann::json& v = object_.at(std::string(key));
    if (!v.is_boolean()) {
      return Fail(ErrorCode::kInvalidArgument,
                  Where(key) + "expected true or false, got " + Shown(v));
    }
    return v.get<bool>();
  }
  Result<std::string> String(std::string_view key, std::string fallback) const {
    if (!Has(key)) return fallback;
    const nlohmann::json& v = object_.at(std::string(key));
    if (!v.is_string())
      return Fail(ErrorCode::kInvalidArgument, Where(key) + "expected a string, got " + Shown(v));
    return v.get<std::string>();
  }
  Result<const nlohmann::json*> Array(std::string_view key, bool required) const {
    if (!Has(key)) {
      if (required) return Fail(ErrorCode::kInvalidArgument, Where(key) + "missing (required)");
      return nullptr;
    }
    const nlohmann::json& v = object_.at(std::string(key));
    if (!v.is_array())
      return Fail(ErrorCode::kInvalidArgument, Where(key) + "expected an array, got " + Shown(v));
    return &v;
  }
  std::string Path(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

 private:
  std::string Where(std::string_view key) const {
    std::string p = key.empty() ? path_ : Path(key);
    return (p.empty() ? std::string("(top level)") : p) + ": ";
  }
  static std::string Shown(const nlohmann::json& v) {
    std::string s = v.dump();
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return std::string(v.type_name()) + " " + s;
  }
  static std::string Range(long min, long max) {
    if (max == std::numeric_limits<long>::max()) return ">= " + std::to_string(min);
    return "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  }
  const nlohmann::json& object_;
  std::string path_;
};

}  // namespace psched
