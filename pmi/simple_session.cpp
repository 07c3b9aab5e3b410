#include "pmi/simple_session.hpp"

#include <algorithm>

#include "pmi/wire2.hpp"

namespace psched::pmi {

namespace {

using Args = std::vector<std::pair<std::string, std::string>>;

Outcome Reply(std::string_view name, const Args& args) {
  Outcome o;
  o.reply = FormatLine(name, args);
  return o;
}

// An error answer under the reply's own name, so the client's wait for that reply
// ends with rc != 0 and the reason in msg.
// The reason is cut to fit the client's one-line buffer (kMaxLine) with room to spare.
Outcome Refuse(std::string_view reply_name, const std::string& why) {
  Outcome o = Reply(reply_name, {{"rc", "-1"}, {"msg", WireText(why).substr(0, kMaxLine / 2)}});
  o.problem = why;
  return o;
}

// The reply each command expects (MPICH's client checks the name).
std::string_view ReplyName(std::string_view cmd) {
  if (cmd == "init") return "response_to_init";
  if (cmd == "get_maxes") return "maxes";
  if (cmd == "get_appnum") return "appnum";
  if (cmd == "get_my_kvsname") return "my_kvsname";
  if (cmd == "get_universe_size") return "universe_size";
  if (cmd == "put") return "put_result";
  if (cmd == "get") return "get_result";
  if (cmd == "barrier_in") return "barrier_out";
  if (cmd == "finalize") return "finalize_ack";
  if (cmd == "publish_name") return "publish_result";
  if (cmd == "unpublish_name") return "unpublish_result";
  if (cmd == "lookup_name") return "lookup_result";
  if (cmd == "spawn") return "spawn_result";
  return "error";
}

}  // namespace

SimpleSession::SimpleSession(SimpleSessionInfo info) : info_(std::move(info)) {
  kvs_ = info_.preput;
}

Outcome SimpleSession::Handle(int rank, const Result<std::string>& line) {
  if (!line) return Refuse("error", line.error().message());
  if (auto it = spawns_.find(rank); SpawnReader::Opens(*line) || it != spawns_.end())
    return Spawn(rank, *line);
  auto command = ParseLine(*line);
  if (!command) return Refuse("error", "malformed command: " + command.error().message());
  return Dispatch(rank, *command);
}

Outcome SimpleSession::Dispatch(int rank, const Command& c) {
  if (c.name == "init") return Init(rank, c);
  if (c.name == "get_maxes") {
    return Reply("maxes", {{"kvsname_max", std::to_string(kKvsNameMax)},
                           {"keylen_max", std::to_string(kKeyMax)},
                           {"vallen_max", std::to_string(kValueMax)},
                           {"rc", "0"}});
  }
  if (c.name == "get_appnum")
    return Reply("appnum", {{"appnum", std::to_string(AppnumOf(rank))}, {"rc", "0"}});
  if (c.name == "get_my_kvsname")
    return Reply("my_kvsname", {{"kvsname", info_.kvsname}, {"rc", "0"}});
  if (c.name == "get_universe_size")
    return Reply("universe_size", {{"size", std::to_string(info_.universe_size)}, {"rc", "0"}});
  if (c.name == "put") return Put(c);
  if (c.name == "get") return Get(c);
  if (c.name == "barrier_in") return Barrier(rank);
  if (c.name == "finalize") {
    finalized_.insert(rank);
    Outcome o = Reply("finalize_ack", {{"rc", "0"}});
    o.finalized = true;
    return o;
  }
  if (c.name == "abort") {
    Outcome o;
    // MPICH's MPI_Abort sends its status only; later clients add a message.
    const int code = IntValue(c.Get("exitcode")).value_or(1);
    std::string message = "called MPI_Abort (PMI abort) with status " + std::to_string(code);
    if (auto text = c.Get("message"); text && !text->empty()) message += ": " + std::string(*text);
    o.abort = std::make_pair(code, std::move(message));
    return o;  // no answer: the session ends
  }
  // Known to the protocol but not served here (name publishing; spawn is mcmd=spawn).
  const std::string_view reply = ReplyName(c.name);
  if (reply != "error") return Refuse(reply, "'" + c.name + "' is not supported by psched");
  return Refuse("error", "unknown command '" + c.name + "'");
}

Outcome SimpleSession::Init(int rank, const Command& c) {
  auto version = IntValue(c.Get("pmi_version"));
  auto subversion = IntValue(c.Get("pmi_subversion"));
  if (!version || !subversion)
    return Refuse("response_to_init", "init needs pmi_version and pmi_subversion");
  if (*version == 2 && info_.serve_pmi2) {
    initialized_.insert(rank);
    pmi2_ranks_.insert(rank);
    Outcome o =
        Reply("response_to_init", {{"pmi_version", "2"}, {"pmi_subversion", "0"}, {"rc", "0"}});
    o.pmi2 = true;
    return o;
  }
  if (*version != 1 || !info_.serve_pmi1) {
    Outcome o =
        Refuse("response_to_init", "PMI version " + std::to_string(*version) +
                                       " is not served to this session (" + Versions() + " only)");
    o.reply = FormatLine("response_to_init", {{"rc", "-1"},
                                              {"pmi_version", info_.serve_pmi1 ? "1" : "2"},
                                              {"pmi_subversion", info_.serve_pmi1 ? "1" : "0"},
                                              {"msg", WireText(o.problem)}});
    return o;
  }
  initialized_.insert(rank);
  return Reply("response_to_init",
               {{"pmi_version", "1"},
                {"pmi_subversion", std::to_string(std::clamp(*subversion, 0, 1))},
                {"rc", "0"}});
}

std::string SimpleSession::Versions() const {
  if (info_.serve_pmi1 && info_.serve_pmi2) return "PMI-1 and PMI-2";
  return info_.serve_pmi1 ? "PMI-1" : "PMI-2";
}

Outcome SimpleSession::Spawn(int rank, std::string_view line) {
  SpawnReader& reader = spawns_[rank];
  auto done = reader.Add(line);
  if (!done) return {};  // more lines or blocks to come: the client waits
  spawns_.erase(rank);
  if (!*done) return Refuse("spawn_result", done->error().message());
  SpawnRequest& request = **done;
  Outcome o;
  o.spawn = std::move(request);
  return o;
}

Outcome SimpleSession::SpawnAnswer(const Result<void>& started) {
  if (!started) return Refuse("spawn_result", started.error().message());
  return Reply("spawn_result", {{"rc", "0"}});
}

bool SimpleSession::KvsNameOk(const Command& c) const {
  auto name = c.Get("kvsname");
  return !name || *name == info_.kvsname;
}

Outcome SimpleSession::Put(const Command& c) {
  auto key = c.Get("key");
  auto value = c.Get("value");
  if (!key || !value) return Refuse("put_result", "put needs key and value");
  if (!KvsNameOk(c))
    return Refuse("put_result", "unknown kvsname '" + std::string(*c.Get("kvsname")) + "'");
  if (key->empty() || key->size() >= static_cast<size_t>(kKeyMax)) {
    return Refuse("put_result", "key of " + std::to_string(key->size()) + " bytes (1 to " +
                                    std::to_string(kKeyMax - 1) + ")");
  }
  pending_[std::string(*key)] = std::string(*value);
  return Reply("put_result", {{"rc", "0"}, {"msg", "success"}});
}

Outcome SimpleSession::Get(const Command& c) const {
  auto key = c.Get("key");
  if (!key) return Refuse("get_result", "get needs a key");
  if (!KvsNameOk(c))
    return Refuse("get_result", "unknown kvsname '" + std::string(*c.Get("kvsname")) + "'");
  const std::string k(*key);
  const std::string* value = nullptr;
  if (k == "PMI_process_mapping") value = &info_.process_mapping;
  // hydra's word for no file (MPICH would take "" for a file name).
  static const std::string kUnavailable = "unavailable";
  if (k == "PMI_hwloc_xmlfile")
    value = info_.hwloc_xmlfile.empty() ? &kUnavailable : &info_.hwloc_xmlfile;
  if (value == nullptr)
    if (auto it = pending_.find(k); it != pending_.end()) value = &it->second;
  if (value == nullptr)
    if (auto it = kvs_.find(k); it != kvs_.end()) value = &it->second;
  if (value != nullptr)
    return Reply("get_result", {{"rc", "0"}, {"msg", "success"}, {"value", *value}});
  // Flux RFC 13: a missing key of the reserved PMI_ space is an empty value, not an error.
  if (k.starts_with("PMI_"))
    return Reply("get_result", {{"rc", "0"}, {"msg", "success"}, {"value", ""}});
  Outcome o = Reply("get_result", {{"rc", "-1"}, {"msg", "key_" + WireText(k) + "_not_found"}});
  return o;  // a normal answer (clients probe for keys), not a problem worth a log line
}

Outcome SimpleSession::Barrier(int rank) {
  if (std::find(info_.local_ranks.begin(), info_.local_ranks.end(), rank) ==
      info_.local_ranks.end()) {
    return RefuseFor(rank, "barrier_out", "kvs-fence-response", kPmi2InvalidArg,
                     "rank " + std::to_string(rank) + " is not local");
  }
  if (!in_barrier_.insert(rank).second) {
    return RefuseFor(rank, "barrier_out", "kvs-fence-response", kPmi2Other,
                     "rank " + std::to_string(rank) + " is already in the barrier");
  }
  Outcome o;
  if (in_barrier_.size() == info_.local_ranks.size() && !barrier_running_) {
    barrier_running_ = true;
    o.barrier_blob = EncodePuts(pending_);
  }
  return o;
}

std::vector<std::pair<int, std::string>> SimpleSession::BarrierDone(
    const Result<std::string>& blobs) {
  std::vector<int> waiting(in_barrier_.begin(), in_barrier_.end());
  in_barrier_.clear();
  barrier_running_ = false;
  ++barriers_done_;
  std::string failed;
  Result<std::map<std::string, std::string>> all;
  if (!blobs) {
    failed = "barrier failed: " + blobs.error().message();
  } else if (all = DecodePuts(*blobs); !all) {
    failed = "barrier: " + all.error().message();
  }
  std::vector<std::pair<int, std::string>> out;
  for (int rank : waiting) {
    std::optional<std::string> thrid;
    if (auto t = fence_thrid_.find(rank); t != fence_thrid_.end()) {
      thrid = std::move(t->second);
      fence_thrid_.erase(t);
    }
    if (!failed.empty()) {
      out.emplace_back(
          rank,
          WithThrid(RefuseFor(rank, "barrier_out", "kvs-fence-response", kPmi2Other, failed).reply,
                    thrid));
    } else if (pmi2_ranks_.contains(rank)) {
      out.emplace_back(rank, WithThrid(FormatMessage2("kvs-fence-response", {{"rc", "0"}}), thrid));
    } else {
      out.emplace_back(rank, FormatLine("barrier_out", {{"rc", "0"}}));
    }
  }
  if (!failed.empty()) return out;
  for (auto& [k, v] : *all) kvs_[k] = std::move(v);
  pending_.clear();
  return out;
}

Outcome SimpleSession::RefuseFor(int rank, std::string_view pmi1_reply, std::string_view pmi2_reply,
                                 int pmi2_rc, const std::string& why) const {
  if (!pmi2_ranks_.contains(rank)) return Refuse(pmi1_reply, why);
  Outcome o;
  o.reply = FormatMessage2(
      pmi2_reply, {{"rc", std::to_string(pmi2_rc)}, {"errmsg", why.substr(0, kPmi2ValueMax - 1)}});
  o.problem = why;
  return o;
}

int SimpleSession::AppnumOf(int rank) const {
  for (size_t i = 0; i < info_.local_ranks.size() && i < info_.appnum_of_local_rank.size(); ++i)
    if (info_.local_ranks[i] == rank) return info_.appnum_of_local_rank[i];
  return 0;
}

std::string SimpleSession::EncodePuts(const std::map<std::string, std::string>& puts) {
  std::string out;
  for (const auto& [k, v] : puts) out.append(k).append("=").append(v).append("\n");
  return out;
}

Result<std::map<std::string, std::string>> SimpleSession::DecodePuts(const std::string& blob) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  while (i < blob.size()) {
    const size_t nl = blob.find('\n', i);
    if (nl == std::string::npos) return Fail(ErrorCode::kProtocol, "unterminated put in a blob");
    const std::string_view line(blob.data() + i, nl - i);
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return Fail(ErrorCode::kProtocol, "a blob's put has no key=");
    out[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
    i = nl + 1;
  }
  return out;
}

}  // namespace psched::pmi
