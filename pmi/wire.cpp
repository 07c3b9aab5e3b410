#include "pmi/wire.hpp"

#include <charconv>
#include <cstdlib>

#include "pmi/comm_spawn_block.hpp"

namespace psched::pmi {

namespace {

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

}  // namespace

std::optional<std::string_view> Command::Get(std::string_view key) const {
  for (const auto& [k, v] : args)
    if (k == key) return std::string_view(v);
  return std::nullopt;
}

std::optional<int> IntValue(std::optional<std::string_view> text) {
  if (!text) return std::nullopt;
  int v = 0;
  const char* end = text->data() + text->size();
  auto [p, ec] = std::from_chars(text->data(), end, v);
  if (ec != std::errc() || p != end) return std::nullopt;
  return v;
}

Result<Command> ParseLine(std::string_view line) {
  if (line.size() >= kMaxLine) {
    return Fail(ErrorCode::kProtocol, "line of " + std::to_string(line.size()) +
                                          " bytes (at most " + std::to_string(kMaxLine - 1) + ")");
  }
  std::vector<std::pair<std::string, std::string>> tuples;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsBlank(line[i])) ++i;
    if (i == line.size()) break;
    size_t end = i;
    while (end < line.size() && !IsBlank(line[end])) ++end;
    const std::string_view word = line.substr(i, end - i);
    i = end;
    const size_t eq = word.find('=');
    if (eq == std::string_view::npos) {
      if (tuples.empty())
        return Fail(ErrorCode::kProtocol, "'" + std::string(word) + "' is not key=value");
      tuples.back().second.append(" ").append(word);  // a value with spaces
      continue;
    }
    if (eq == 0) return Fail(ErrorCode::kProtocol, "'" + std::string(word) + "' has no key");
    tuples.emplace_back(std::string(word.substr(0, eq)), std::string(word.substr(eq + 1)));
  }
  if (tuples.empty()) return Fail(ErrorCode::kProtocol, "empty command");
  if ((tuples[0].first != "cmd" && tuples[0].first != "mcmd") || tuples[0].second.empty())
    return Fail(ErrorCode::kProtocol, "command does not start with cmd=NAME");
  Command c;
  c.name = std::move(tuples[0].second);
  c.args.assign(std::make_move_iterator(tuples.begin() + 1), std::make_move_iterator(tuples.end()));
  return c;
}

std::string FormatLine(std::string_view name,
                       const std::vector<std::pair<std::string, std::string>>& args) {
  std::string out = "cmd=";
  out.append(name);
  for (const auto& [k, v] : args) out.append(" ").append(k).append("=").append(v);
  out.push_back('\n');
  return out;
}

std::string WireText(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c == ' ' || c == '=' || static_cast<unsigned char>(c) < 0x21 || c == 0x7f) c = '_';
  return out;
}

void LineSplitter::Append(std::string_view bytes) {
  buffer_.append(bytes);
}

std::optional<Result<std::string>> LineSplitter::Next() {
  for (;;) {
    const size_t nl = buffer_.find('\n');
    if (skipping_) {
      if (nl == std::string::npos) {
        buffer_.clear();
        return std::nullopt;
      }
      buffer_.erase(0, nl + 1);
      skipping_ = false;
      continue;
    }
    if (nl == std::string::npos) {
      if (buffer_.size() < kMaxLine) return std::nullopt;
      // No newline within a whole line's worth: say so once, drop the rest of the line.
      const size_t seen = buffer_.size();
      buffer_.clear();
      skipping_ = true;
      return Result<std::string>(Fail(
          ErrorCode::kProtocol, "line longer than " + std::to_string(kMaxLine - 1) + " bytes (" +
                                    std::to_string(seen) + " without a newline)"));
    }
    std::string line = buffer_.substr(0, nl);
    buffer_.erase(0, nl + 1);
    if (line.size() >= kMaxLine) {
      return Result<std::string>(
          Fail(ErrorCode::kProtocol, "line of " + std::to_string(line.size()) + " bytes (at most " +
                                         std::to_string(kMaxLine - 1) + ")"));
    }
    return Result<std::string>(std::move(line));
  }
}

std::string LineSplitter::TakeRest() {
  std::string rest = skipping_ ? std::string() : std::move(buffer_);
  buffer_.clear();
  skipping_ = false;
  return rest;
}

int FuzzWire(const uint8_t* data, size_t size) {
  LineSplitter splitter;
  SpawnReader spawn;  // MPICH's mcmd=spawn blocks, fed every line as the session does
  splitter.Append(std::string_view(reinterpret_cast<const char*>(data), size));
  while (auto line = splitter.Next()) {
    if (!*line) continue;
    if (line->value().size() >= kMaxLine || line->value().find('\n') != std::string::npos)
      std::abort();
    if (spawn.open() || SpawnReader::Opens(line->value())) {
      auto done = spawn.Add(line->value());
      if (done && spawn.open()) std::abort();  // an answer ends the spawn
      if (done && *done) {
        for (const SpawnApp& app : (*done)->apps)
          if (app.nprocs < 1 || app.execname.empty()) std::abort();
      }
      continue;
    }
    auto command = ParseLine(line->value());
    if (!command) continue;
    // What parses prints back to a line that parses to the same command.
    std::string text = FormatLine(command->name, command->args);
    text.pop_back();
    if (text.size() >= kMaxLine) continue;
    auto again = ParseLine(text);
    if (!again || again->name != command->name || again->args != command->args) std::abort();
  }
  return 0;
}

}  // namespace psched::pmi
