#include "pmi/wire2.hpp"

#include <algorithm>
#include <cstdlib>

namespace psched::pmi {

namespace {

// The length field: optional blanks, digits, optional blanks (the client writes the
// number, then pads with spaces).
std::optional<size_t> ParseLength(std::string_view field) {
  size_t i = 0;
  while (i < field.size() && field[i] == ' ') ++i;
  size_t n = 0;
  size_t digits = 0;
  for (; i < field.size() && field[i] >= '0' && field[i] <= '9'; ++i, ++digits)
    n = n * 10 + static_cast<size_t>(field[i] - '0');
  while (i < field.size() && field[i] == ' ') ++i;
  if (digits == 0 || i != field.size()) return std::nullopt;
  return n;
}

// "key=value;" with a ';' in the value doubled.
void AppendEscapedPair(std::string& body, std::string_view key, std::string_view value) {
  body.append(key).push_back('=');
  for (char c : value) {
    if (c == ';') body.push_back(';');
    body.push_back(c);
  }
  body.push_back(';');
}

std::string Framed(std::string_view body) {
  std::string out = std::to_string(body.size());
  out.resize(kPmi2LengthField, ' ');
  return out.append(body);
}

}  // namespace

Result<Command> ParseMessage2(std::string_view body) {
  std::vector<std::pair<std::string, std::string>> pairs;
  size_t i = 0;
  while (i < body.size()) {
    const size_t eq = body.find('=', i);
    if (eq == std::string_view::npos) {
      return Fail(ErrorCode::kProtocol,
                  "'" + std::string(body.substr(i, 64)) + "' is not key=value");
    }
    const std::string_view key = body.substr(i, eq - i);
    if (key.empty()) return Fail(ErrorCode::kProtocol, "a pair has no key");
    if (key.size() > kPmi2KeyMax || key.find(';') != std::string_view::npos) {
      return Fail(ErrorCode::kProtocol, "key '" + std::string(key.substr(0, 64)) +
                                            "' is not a key (at most " +
                                            std::to_string(kPmi2KeyMax) + " bytes, no ';')");
    }
    std::string value;
    size_t j = eq + 1;
    for (; j < body.size(); ++j) {
      if (body[j] == ';') {
        if (j + 1 < body.size() && body[j + 1] == ';') {
          value.push_back(';');  // an escaped ';'
          ++j;
          continue;
        }
        break;
      }
      value.push_back(body[j]);
    }
    pairs.emplace_back(std::string(key), std::move(value));
    i = j + 1;  // past the ';' (or the end)
  }
  if (pairs.empty() || pairs[0].first != "cmd" || pairs[0].second.empty())
    return Fail(ErrorCode::kProtocol, "message does not start with cmd=NAME");
  Command c;
  c.name = std::move(pairs[0].second);
  c.args.assign(std::make_move_iterator(pairs.begin() + 1), std::make_move_iterator(pairs.end()));
  return c;
}

std::string FormatMessage2(std::string_view name,
                           const std::vector<std::pair<std::string, std::string>>& args) {
  std::string body;
  AppendEscapedPair(body, "cmd", name);
  for (const auto& [k, v] : args) AppendEscapedPair(body, k, v);
  return Framed(body);
}

std::string AppendPair2(std::string_view message, std::string_view key, std::string_view value) {
  std::string body(message.substr(std::min(message.size(), kPmi2LengthField)));
  AppendEscapedPair(body, key, value);
  return Framed(body);
}

void FrameSplitter::Append(std::string_view bytes) {
  if (!broken_) buffer_.append(bytes);
}

std::optional<Result<std::string>> FrameSplitter::Next() {
  if (broken_ || buffer_.size() < kPmi2LengthField) return std::nullopt;
  const std::string_view field(buffer_.data(), kPmi2LengthField);
  const auto length = ParseLength(field);
  if (!length || *length == 0 || *length > kPmi2MaxMessage - kPmi2LengthField) {
    broken_ = true;
    buffer_.clear();
    std::string shown;
    for (char c : field) shown.push_back(c >= 0x20 && c < 0x7f ? c : '?');
    return Result<std::string>(
        Fail(ErrorCode::kProtocol, "PMI-2 length field '" + shown + "' is not a length from 1 to " +
                                       std::to_string(kPmi2MaxMessage - kPmi2LengthField)));
  }
  if (buffer_.size() < kPmi2LengthField + *length) return std::nullopt;
  std::string body = buffer_.substr(kPmi2LengthField, *length);
  buffer_.erase(0, kPmi2LengthField + *length);
  return Result<std::string>(std::move(body));
}

int FuzzWire2(const uint8_t* data, size_t size) {
  FrameSplitter frames;
  frames.Append(std::string_view(reinterpret_cast<const char*>(data), size));
  while (auto body = frames.Next()) {
    if (!*body) {
      if (!frames.broken() || frames.Next()) std::abort();  // broken for good
      continue;
    }
    if (body->value().empty() || body->value().size() >= kPmi2MaxMessage) std::abort();
    auto command = ParseMessage2(body->value());
    if (!command) continue;
    // What parses prints back to a message that splits and parses to the same command.
    const std::string message = FormatMessage2(command->name, command->args);
    if (message.size() > kPmi2MaxMessage) continue;  // escaping made it too long to send
    FrameSplitter again;
    again.Append(message);
    auto framed = again.Next();
    if (!framed || !*framed || again.Next()) std::abort();
    auto reparsed = ParseMessage2(framed->value());
    if (!reparsed || reparsed->name != command->name || reparsed->args != command->args)
      std::abort();
    // An echoed thrid (any bytes, ';' too) is one more pair, after the others.
    const std::string thrid = body->value().substr(0, 16);
    const std::string answered = AppendPair2(message, "thrid", thrid);
    if (answered.size() > kPmi2MaxMessage) continue;
    FrameSplitter echoed;
    echoed.Append(answered);
    auto with = echoed.Next();
    if (!with || !*with) std::abort();
    auto answer = ParseMessage2(with->value());
    if (!answer || answer->args.size() != command->args.size() + 1 ||
        answer->args.back() != std::make_pair(std::string("thrid"), thrid))
      std::abort();
  }
  return 0;
}

}  // namespace psched::pmi
