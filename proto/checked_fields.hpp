// Checked decoding of message fields from the wire's JSON (MessagePack maps).
//
// nlohmann's own conversions cast: a float sent in an integer field becomes the integer
// (undefined behaviour when it does not fit: an unauthenticated auth.response
// {"node": 1e300}), an integer too large for the field wraps, and a boolean counts as a
// number. Here every field is read as what its C++ type is: an integer field takes only a
// JSON integer its type can hold, a floating field any number, a string a string, a list
// a list of such items, a struct a map, Binary bytes; anything else is a FieldError naming the
// field
// ("'ranks[2].node' is out of range: 4294967296"). A floating field is never checked for
// range here: an infinite estimate is the receiver's to refuse, with its own message.
//
// A std::optional<T> field is absent from the map while empty and read as T when present
// (null reads as absent: nlohmann writes an empty optional so). A key the struct does not
// know is ignored, in any message: a later version may add fields.
//
// PSCHED_WIRE_STRUCT(Type, fields...) defines to_json/from_json like nlohmann's
// NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT (same map, a missing field keeps its
// default) with these checks on decoding.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace psched::proto::fields {

using Json = nlohmann::json;

// A field that does not decode: `path` names it from the message's top ("ranks[2].node").
class FieldError : public std::runtime_error {
 public:
  FieldError(std::string path, std::string problem)
      : std::runtime_error("'" + path + "' " + problem),
        path_(std::move(path)),
        problem_(std::move(problem)) {}
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_;
  std::string problem_;
};

// A value for the error message: short, whatever it is.
inline std::string Shown(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

// An integer of type I, from a JSON integer it can hold; no float, no boolean.
template <typename I>
I IntegerIn(const Json& v, const std::string& path) {
  static_assert(std::is_integral_v<I> && !std::is_same_v<I, bool>);
  if (!v.is_number_integer()) throw FieldError(path, "is not an integer: " + Shown(v));
  bool fits = false;
  if (v.is_number_unsigned()) {
    fits = v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<I>::max());
  } else {
    const int64_t i = v.get<int64_t>();
    if constexpr (std::is_signed_v<I>) {
      fits = i >= std::numeric_limits<I>::min() && i <= std::numeric_limits<I>::max();
    } else {
      fits = i >= 0 && static_cast<uint64_t>(i) <= std::numeric_limits<I>::max();
    }
  }
  if (!fits) throw FieldError(path, "is out of range: " + Shown(v));
  return v.is_number_unsigned() ? static_cast<I>(v.get<uint64_t>())
                                : static_cast<I>(v.get<int64_t>());
}

// Bytes that travel as MessagePack binary (PMIx blobs, published values), not as text.
struct Binary {
  std::string bytes;
  bool operator==(const Binary&) const = default;
};
inline void to_json(Json& j, const Binary& b) {
  j = Json::binary(std::vector<uint8_t>(b.bytes.begin(), b.bytes.end()));
}

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsStringMap : std::false_type {};
template <typename T>
struct IsStringMap<std::map<std::string, T>> : std::true_type {};

// Reads `v` into `out` as its type requires; `path` names it in an error.
template <typename T>
void Read(const Json& v, const std::string& path, T& out) {
  if constexpr (IsOptional<T>::value) {
    if (v.is_null()) {
      out.reset();
    } else {
      Read(v, path, out.emplace());
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) throw FieldError(path, "is not a boolean: " + Shown(v));
    out = v.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    out = IntegerIn<T>(v, path);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number()) throw FieldError(path, "is not a number: " + Shown(v));
    out = v.get<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) throw FieldError(path, "is not a string: " + Shown(v));
    out = v.get_ref<const std::string&>();
  } else if constexpr (std::is_same_v<T, Json>) {
    out = v;
  } else if constexpr (std::is_same_v<T, Binary>) {
    if (!v.is_binary()) throw FieldError(path, "is not binary: " + Shown(v));
    out.bytes.assign(v.get_binary().begin(), v.get_binary().end());
  } else if constexpr (IsVector<T>::value) {
    if (!v.is_array()) throw FieldError(path, "is not a list: " + Shown(v));
    out.clear();
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      Read(v[i], path + "[" + std::to_string(i) + "]", out.emplace_back());
    }
  } else if constexpr (IsStringMap<T>::value) {
    if (!v.is_object()) throw FieldError(path, "is not a map: " + Shown(v));
    out.clear();
    for (const auto& [key, item] : v.items()) Read(item, path + "." + key, out[key]);
  } else {
    // A struct with from_json: its own fields' errors name it as their prefix.
    if (!v.is_object()) throw FieldError(path, "is not a map: " + Shown(v));
    try {
      v.get_to(out);
    } catch (const FieldError& e) {
      throw FieldError(path + "." + e.path(), e.problem());
    }
  }
}

// A message's field: kept at its default when absent.
template <typename T>
void ReadIfPresent(const Json& message, const char* name, T& out) {
  auto it = message.find(name);
  if (it != message.end()) Read(*it, name, out);
}

// A message's field into its map; an empty optional is left out.
template <typename T>
void Write(Json& message, const char* name, const T& value) {
  if constexpr (IsOptional<T>::value) {
    if (value) message[name] = *value;
  } else {
    message[name] = value;
  }
}

// The top of a message is a map.
inline void RequireMap(const Json& message) {
  if (!message.is_object()) throw std::invalid_argument("not a map: " + Shown(message));
}

}  // namespace psched::proto::fields

#define PSCHED_WIRE_READ_FIELD(v1) \
  ::psched::proto::fields::ReadIfPresent(nlohmann_json_j, #v1, nlohmann_json_t.v1);
#define PSCHED_WIRE_WRITE_FIELD(v1) \
  ::psched::proto::fields::Write(nlohmann_json_j, #v1, nlohmann_json_t.v1);

// to_json and from_json of a wire struct: NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT's
// map, with every field's decoding checked (see above).
#define PSCHED_WIRE_STRUCT(Type, ...)                                                   \
  inline void to_json(nlohmann::json& nlohmann_json_j, const Type& nlohmann_json_t) {   \
    nlohmann_json_j = nlohmann::json::object();                                         \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(PSCHED_WIRE_WRITE_FIELD, __VA_ARGS__))     \
  }                                                                                     \
  inline void from_json(const nlohmann::json& nlohmann_json_j, Type& nlohmann_json_t) { \
    ::psched::proto::fields::RequireMap(nlohmann_json_j);                               \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(PSCHED_WIRE_READ_FIELD, __VA_ARGS__))      \
  }

// A message without fields: an empty map on the wire; decoding takes any map (a field a
// later version adds is ignored, as in any message) and refuses anything else.
// NOLINTBEGIN(bugprone-macro-parentheses): `Type` names a type, it cannot be parenthesised.
#define PSCHED_WIRE_EMPTY_STRUCT(Type)                    \
  inline void to_json(nlohmann::json& j, const Type&) {   \
    j = nlohmann::json::object();                         \
  }                                                       \
  inline void from_json(const nlohmann::json& j, Type&) { \
    ::psched::proto::fields::RequireMap(j);               \
  }
// NOLINTEND(bugprone-macro-parentheses)
