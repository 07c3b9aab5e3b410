#include "pmi/comm_spawn_block.hpp"

#include <charconv>
#include <map>

namespace psched::pmi {

namespace {

// MPICH's client builds a block in one 1024-byte buffer, so a real one has far fewer
// lines; hydra takes at most 256 arguments.
constexpr size_t kMaxBlockLines = 600;
constexpr int kMaxArgs = 256;
constexpr int kMaxProcs = 1 << 20;

Error Bad(const std::string& why) {
  return Error(ErrorCode::kProtocol, "spawn: " + why);
}

std::optional<int> ToInt(const std::string& text) {
  int v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end) return std::nullopt;
  return v;
}

}  // namespace

std::string SpawnApp::Info(std::string_view key) const {
  for (const auto& [k, v] : info)
    if (k == key) return v;
  return "";
}

bool SpawnReader::Opens(std::string_view line) {
  return line == "mcmd=spawn";
}

std::optional<Result<SpawnRequest>> SpawnReader::Add(std::string_view line) {
  if (!open_) {
    if (!Opens(line)) return Fail(Bad("a block must start with mcmd=spawn"));
    open_ = true;
    lines_.clear();
    return std::nullopt;
  }
  if (line != "endcmd") {
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      if (!problem_)
        problem_ = Bad("a line of the block is not key=value: '" + std::string(line) + "'");
    } else if (lines_.size() < kMaxBlockLines) {
      // The value is the rest of the line: arguments may hold '=' and spaces.
      lines_.emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
    } else if (!problem_) {
      problem_ = Bad("a block of more than " + std::to_string(kMaxBlockLines) + " lines");
    }
    return std::nullopt;
  }
  open_ = false;
  bool last = true;
  auto app = Finish(last);
  if (!app && !problem_) problem_ = app.error();
  if (app && !problem_) request_.apps.push_back(std::move(*app));
  if (!last) return std::nullopt;
  std::optional<Result<SpawnRequest>> out;
  if (problem_) {
    out = Fail(*problem_);
  } else {
    out = std::move(request_);
  }
  request_ = SpawnRequest{};
  problem_.reset();
  return out;
}

Result<SpawnApp> SpawnReader::Finish(bool& last) {
  std::map<std::string, std::string> kv;
  for (const auto& [k, v] : lines_)
    if (!kv.emplace(k, v).second) return Fail(Bad("'" + k + "' given twice in one block"));
  auto number = [&kv](const std::string& key) -> Result<int> {
    auto it = kv.find(key);
    if (it == kv.end()) return Fail(Bad("no " + key + "="));
    auto v = ToInt(it->second);
    if (!v || *v < 0) return Fail(Bad(key + "=" + it->second + " is not a count"));
    return *v;
  };
  auto text = [&kv](const std::string& key) -> Result<std::string> {
    auto it = kv.find(key);
    if (it == kv.end()) return Fail(Bad("no " + key + "="));
    return it->second;
  };
  auto total = number("totspawns");
  auto sofar = number("spawnssofar");
  if (!total) return Fail(total.error());
  if (!sofar) return Fail(sofar.error());
  last = *sofar >= *total;
  if (*total < 1 || *sofar < 1) return Fail(Bad("totspawns and spawnssofar must be at least 1"));
  if (*sofar != static_cast<int>(request_.apps.size()) + 1 && !problem_) {
    return Fail(Bad("block " + std::to_string(*sofar) + " of " + std::to_string(*total) +
                    " after " + std::to_string(request_.apps.size()) + " block(s)"));
  }
  SpawnApp app;
  auto nprocs = number("nprocs");
  if (!nprocs) return Fail(nprocs.error());
  if (*nprocs < 1 || *nprocs > kMaxProcs) {
    return Fail(
        Bad("nprocs=" + std::to_string(*nprocs) + " (1 to " + std::to_string(kMaxProcs) + ")"));
  }
  app.nprocs = *nprocs;
  auto exec = text("execname");
  if (!exec) return Fail(exec.error());
  if (exec->empty()) return Fail(Bad("an empty execname"));
  app.execname = *exec;
  auto argcnt = number("argcnt");
  if (!argcnt) return Fail(argcnt.error());
  if (*argcnt > kMaxArgs) return Fail(Bad("argcnt=" + std::to_string(*argcnt) + " (at most 256)"));
  for (int i = 1; i <= *argcnt; ++i) {
    auto arg = text("arg" + std::to_string(i));
    if (!arg) return Fail(arg.error());
    app.args.push_back(*arg);
  }
  auto pairs = [&](const std::string& prefix, KeyValues& out) -> Result<void> {
    auto n = number(prefix + "_num");
    if (!n) return Fail(n.error());
    if (*n > static_cast<int>(kMaxBlockLines))
      return Fail(Bad(prefix + "_num=" + std::to_string(*n) + " is more than the block holds"));
    for (int i = 0; i < *n; ++i) {
      auto key = text(prefix + "_key_" + std::to_string(i));
      auto value = text(prefix + "_val_" + std::to_string(i));
      if (!key) return Fail(key.error());
      if (!value) return Fail(value.error());
      out.emplace_back(*key, *value);
    }
    return {};
  };
  KeyValues preput;
  if (auto ok = pairs("preput", preput); !ok) return Fail(ok.error());
  for (const auto& [k, v] : preput) {
    if (k.empty() || k.find('=') != std::string::npos || v.find('\n') != std::string::npos)
      return Fail(Bad("preput key '" + k + "' cannot be stored"));
  }
  if (request_.apps.empty()) request_.preput = std::move(preput);
  if (auto ok = pairs("info", app.info); !ok) return Fail(ok.error());
  return app;
}

}  // namespace psched::pmi
