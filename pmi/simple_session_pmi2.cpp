// SimpleSession's PMI-2 commands (Slurm's contribs/pmi2 client and its mpi/pmi2 server
// are the reference): the same key-value space, barrier and abort as PMI-1, answered
// as PMI-2 messages ("NAME-response", rc= and errmsg=).
#include <algorithm>

#include "pmi/simple_session.hpp"
#include "pmi/wire2.hpp"

namespace psched::pmi {

namespace {

using Args = std::vector<std::pair<std::string, std::string>>;

Outcome Answer(std::string_view name, Args args) {
  args.insert(args.begin(), {"rc", "0"});
  Outcome o;
  o.reply = FormatMessage2(name, args);
  return o;
}

Outcome Refuse2(std::string_view name, int rc, const std::string& why) {
  Outcome o;
  o.reply = FormatMessage2(
      name, {{"rc", std::to_string(rc)}, {"errmsg", why.substr(0, kPmi2ValueMax - 1)}});
  o.problem = why;
  return o;
}

// kvs-get, info-getnodeattr and info-getjobattr: found=TRUE and the value, or FALSE.
Outcome Found(std::string_view name, const std::string* value) {
  if (value == nullptr) return Answer(name, {{"found", "FALSE"}});
  return Answer(name, {{"found", "TRUE"}, {"value", *value}});
}

// A key and, for a put, a value that fit what the client library may hold.
std::optional<std::pair<int, std::string>> BadKeyValue(const Command& c, bool with_value) {
  auto key = c.Get("key");
  if (!key || key->empty()) return std::make_pair(kPmi2InvalidArg, c.name + " needs a key");
  if (key->size() > kPmi2KeyMax) {
    return std::make_pair(kPmi2InvalidKeyLength, "key of " + std::to_string(key->size()) +
                                                     " bytes (at most " +
                                                     std::to_string(kPmi2KeyMax) + ")");
  }
  if (!with_value) return std::nullopt;
  auto value = c.Get("value");
  if (!value) return std::make_pair(kPmi2InvalidArg, c.name + " needs a value");
  if (value->size() > kPmi2ValueMax) {
    return std::make_pair(kPmi2InvalidValLength, "value of " + std::to_string(value->size()) +
                                                     " bytes (at most " +
                                                     std::to_string(kPmi2ValueMax) + ")");
  }
  return std::nullopt;
}

}  // namespace

Outcome SimpleSession::Handle2(int rank, const Result<std::string>& body) {
  if (!body) return Refuse2("error", kPmi2Other, body.error().message());
  auto command = ParseMessage2(*body);
  if (!command)
    return Refuse2("error", kPmi2Other, "malformed PMI-2 message: " + command.error().message());
  // A threaded client (MPICH's, Slurm's libpmi2) tags each request with its thread's
  // thrid and hands an answer to the thread whose thrid it carries; an answer without one
  // goes to whichever thread reads it. The answers that come later (a fence, a node
  // attribute waited for) carry the thrid of the request they answer.
  Outcome o = Dispatch2(rank, *command);
  if (!o.reply.empty()) o.reply = WithThrid(std::move(o.reply), ThridOf(*command));
  return o;
}

std::optional<std::string> SimpleSession::ThridOf(const Command& c) {
  if (auto thrid = c.Get("thrid")) return std::string(*thrid);
  return std::nullopt;
}

std::string SimpleSession::WithThrid(std::string message, const std::optional<std::string>& thrid) {
  if (!thrid) return message;
  return AppendPair2(message, "thrid", *thrid);
}

Outcome SimpleSession::Dispatch2(int rank, const Command& c) {
  const std::string reply = c.name + "-response";
  if (c.name == "fullinit") {
    // The connection is the rank's own: a client naming another rank is confused.
    if (auto asked = c.Get("pmirank"); asked && IntValue(asked) != rank) {
      return Refuse2(reply, kPmi2InvalidArg,
                     "fullinit for rank " + std::string(*asked) + " on rank " +
                         std::to_string(rank) + "'s connection");
    }
    Args args = {{"pmi-version", "2"},
                 {"pmi-subversion", "0"},
                 {"rank", std::to_string(rank)},
                 {"size", std::to_string(info_.size)},
                 {"appnum", std::to_string(AppnumOf(rank))},
                 {"debugged", "FALSE"},
                 {"pmiverbose", "FALSE"}};
    if (!info_.spawner_jobid.empty()) args.emplace_back("spawner-jobid", info_.spawner_jobid);
    return Answer(reply, std::move(args));
  }
  if (c.name == "job-getid") return Answer(reply, {{"jobid", info_.kvsname}});
  if (c.name == "kvs-put") {
    if (auto bad = BadKeyValue(c, true)) return Refuse2(reply, bad->first, bad->second);
    pending_[std::string(*c.Get("key"))] = std::string(*c.Get("value"));
    return Answer(reply, {});
  }
  if (c.name == "kvs-get") return KvsGet2(c);
  if (c.name == "kvs-fence") {
    Outcome o = Barrier(rank);
    if (o.reply.empty()) {  // in the barrier: BarrierDone answers, with this thrid
      if (auto thrid = ThridOf(c)) fence_thrid_[rank] = std::move(*thrid);
    }
    return o;
  }
  if (c.name == "info-getnodeattr") return GetNodeAttr2(rank, c);
  if (c.name == "info-putnodeattr") return PutNodeAttr2(c);
  if (c.name == "info-getjobattr") return GetJobAttr2(c);
  if (c.name == "finalize") {
    finalized_.insert(rank);
    Outcome o = Answer(reply, {});
    o.finalized = true;
    return o;
  }
  if (c.name == "abort") {
    // The client exits right after (libpmi2: with the isworld flag): no answer, the
    // session ends with status 1 and the rank's message.
    Outcome o;
    std::string message = "called MPI_Abort (PMI-2 abort) with status 1";
    if (auto text = c.Get("msg"); text && !text->empty()) message += ": " + std::string(*text);
    o.abort = std::make_pair(1, std::move(message));
    return o;
  }
  if (c.name == "spawn" || c.name == "job-connect" || c.name == "job-disconnect" ||
      c.name.starts_with("name-") || c.name == "ring") {
    return Refuse2(reply, kPmi2Other, "'" + c.name + "' is not served over PMI-2 by psched");
  }
  return Refuse2(reply, kPmi2InvalidArg, "unknown PMI-2 command '" + c.name + "'");
}

Outcome SimpleSession::KvsGet2(const Command& c) const {
  const std::string reply = "kvs-get-response";
  if (auto bad = BadKeyValue(c, false)) return Refuse2(reply, bad->first, bad->second);
  if (auto jobid = c.Get("jobid"); jobid && !jobid->empty() && *jobid != info_.kvsname)
    return Refuse2(reply, kPmi2InvalidArg, "unknown jobid '" + std::string(*jobid) + "'");
  const std::string key(*c.Get("key"));
  if (auto it = pending_.find(key); it != pending_.end()) return Found(reply, &it->second);
  auto it = kvs_.find(key);
  return Found(reply, it == kvs_.end() ? nullptr : &it->second);
}

Outcome SimpleSession::GetNodeAttr2(int rank, const Command& c) {
  const std::string reply = "info-getnodeattr-response";
  if (auto bad = BadKeyValue(c, false)) return Refuse2(reply, bad->first, bad->second);
  const std::string key(*c.Get("key"));
  if (auto it = node_attrs_.find(key); it != node_attrs_.end()) return Found(reply, &it->second);
  if (c.Get("wait") != "TRUE") return Found(reply, nullptr);
  attr_waiters_[key].push_back(AttrWaiter{rank, ThridOf(c)});  // answered by the put of the key
  return {};
}

Outcome SimpleSession::PutNodeAttr2(const Command& c) {
  const std::string reply = "info-putnodeattr-response";
  if (auto bad = BadKeyValue(c, true)) return Refuse2(reply, bad->first, bad->second);
  const std::string key(*c.Get("key"));
  const std::string& value = node_attrs_[key] = std::string(*c.Get("value"));
  Outcome o = Answer(reply, {});
  if (auto it = attr_waiters_.find(key); it != attr_waiters_.end()) {
    for (const AttrWaiter& waiting : it->second) {
      o.to_others.emplace_back(
          waiting.rank, WithThrid(Found("info-getnodeattr-response", &value).reply, waiting.thrid));
    }
    attr_waiters_.erase(it);
  }
  return o;
}

Outcome SimpleSession::GetJobAttr2(const Command& c) const {
  const std::string reply = "info-getjobattr-response";
  if (auto bad = BadKeyValue(c, false)) return Refuse2(reply, bad->first, bad->second);
  const std::string key(*c.Get("key"));
  // An empty mapping is one too long to send ("unknown"): MPICH then asks host names.
  if (key == "PMI_process_mapping")
    return Found(reply, info_.process_mapping.empty() ? nullptr : &info_.process_mapping);
  if (key == "PMI_hwloc_xmlfile")
    return Found(reply, info_.hwloc_xmlfile.empty() ? nullptr : &info_.hwloc_xmlfile);
  if (key == "universeSize") {
    const std::string size = std::to_string(info_.universe_size);
    return Found(reply, &size);
  }
  return Found(reply, nullptr);
}

}  // namespace psched::pmi
