#include "pmix/pmix_server.hpp"

#include <pmix.h>
#include <pmix_server.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "pmix/upcalls.hpp"

extern char** environ;

namespace psched::pmix {
namespace {

// Waits for one pmix_op_cbfunc_t. Shared with the callback so a wait that timed
// out leaves nothing dangling when PMIx answers late.
struct OpWaiter {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  pmix_status_t status = PMIX_SUCCESS;
};

void OpWaiterDone(pmix_status_t status, void* cbdata) {
  auto* holder = static_cast<std::shared_ptr<OpWaiter>*>(cbdata);
  {
    std::lock_guard lock((*holder)->mu);
    (*holder)->done = true;
    (*holder)->status = status;
  }
  (*holder)->cv.notify_all();
  delete holder;
}

// Runs `start(cbfunc, cbdata)` and waits up to `timeout` for its callback.
template <typename Start>
Result<void> CallAndWait(const std::string& what, std::chrono::milliseconds timeout, Start start) {
  auto waiter = std::make_shared<OpWaiter>();
  auto* holder = new std::shared_ptr<OpWaiter>(waiter);
  pmix_status_t rc = start(&OpWaiterDone, holder);
  if (rc == PMIX_OPERATION_SUCCEEDED) {
    delete holder;
    return {};
  }
  if (rc != PMIX_SUCCESS) {
    delete holder;
    return Fail(ErrorCode::kInternal, what + ": " + PMIx_Error_string(rc));
  }
  std::unique_lock lock(waiter->mu);
  if (!waiter->cv.wait_for(lock, timeout, [&] { return waiter->done; })) {
    return Fail(ErrorCode::kTimeout,
                what + ": no callback from PMIx within " + std::to_string(timeout.count()) + " ms");
  }
  if (waiter->status != PMIX_SUCCESS) {
    return Fail(ErrorCode::kInternal, what + ": " + PMIx_Error_string(waiter->status));
  }
  return {};
}

// Builds a pmix_info_t array with PMIx's own list helpers (they copy every value).
class InfoList {
 public:
  InfoList() : list_(PMIx_Info_list_start()) {}
  ~InfoList() {
    if (list_ != nullptr) PMIx_Info_list_release(list_);
  }
  InfoList(const InfoList&) = delete;
  InfoList& operator=(const InfoList&) = delete;

  void Add(const char* key, const void* value, pmix_data_type_t type) {
    pmix_status_t rc = PMIx_Info_list_add(list_, key, value, type);
    if (rc != PMIX_SUCCESS && status_ == PMIX_SUCCESS) {
      status_ = rc;
      failed_key_ = key;
    }
  }
  void AddU32(const char* key, uint32_t v) { Add(key, &v, PMIX_UINT32); }
  void AddU16(const char* key, uint16_t v) { Add(key, &v, PMIX_UINT16); }
  void AddRank(const char* key, pmix_rank_t v) { Add(key, &v, PMIX_PROC_RANK); }
  void AddString(const char* key, const std::string& v) { Add(key, v.c_str(), PMIX_STRING); }
  void AddBool(const char* key, bool v) { Add(key, &v, PMIX_BOOL); }

  // Moves the list into `out` (a data array of pmix_info_t); caller destructs it.
  Result<void> Convert(pmix_data_array_t* out) {
    if (status_ != PMIX_SUCCESS) {
      return Fail(ErrorCode::kInternal,
                  "PMIx_Info_list_add(" + failed_key_ + "): " + PMIx_Error_string(status_));
    }
    PMIX_DATA_ARRAY_CONSTRUCT(out, 0, PMIX_INFO);
    pmix_status_t rc = PMIx_Info_list_convert(list_, out);
    if (rc != PMIX_SUCCESS) {
      return Fail(ErrorCode::kInternal,
                  std::string("PMIx_Info_list_convert: ") + PMIx_Error_string(rc));
    }
    return {};
  }

 private:
  void* list_;
  pmix_status_t status_ = PMIX_SUCCESS;
  std::string failed_key_;
};

Result<std::string> GenerateMap(const std::string& what, const std::string& input,
                                pmix_status_t (*generate)(const char*, char**)) {
  char* out = nullptr;
  pmix_status_t rc = generate(input.c_str(), &out);
  if (rc != PMIX_SUCCESS || out == nullptr) {
    return Fail(ErrorCode::kInternal, what + "(\"" + input + "\"): " + PMIx_Error_string(rc));
  }
  std::string s(out);
  free(out);
  return s;
}

void SetIfUnset(const char* name, const char* value) {
  setenv(name, value, /*overwrite=*/0);
}

Result<void> MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return Fail(Error::FromErrno("mkdir", "creating " + path));
  }
  return {};
}

}  // namespace

bool PmixServer::IsInheritedPmixVariable(std::string_view name) {
  return name.starts_with("PMIX_") && !name.starts_with("PMIX_MCA_");
}

Result<std::unique_ptr<PmixServer>> PmixServer::Init(PmixServerOptions options, event_base* base,
                                                     PmixHostServices* services) {
  if (options.tmpdir.empty() || options.tmpdir.size() > 80) {
    // Unix socket paths are limited to 108 bytes; PMIx appends its own file names.
    return Fail(ErrorCode::kInvalidArgument, "PMIx server tmpdir '" + options.tmpdir +
                                                 "' is empty or longer than 80 characters");
  }
  if (options.hostname.empty())
    return Fail(ErrorCode::kInvalidArgument, "PMIx server: empty hostname");
  std::unique_ptr<PmixServer> server(new PmixServer(std::move(options), services));
  const auto& opt = server->options_;
  for (const auto& dir : {opt.tmpdir, opt.tmpdir + "/pmix", opt.tmpdir + "/vader"}) {
    if (auto r = MakeDir(dir); !r) return Fail(r.error().Wrap("PMIx server init"));
  }
  auto queue = UpcallQueue::Create(base);
  if (!queue) return Fail(queue.error());
  server->queue_ = std::move(*queue);

  // A daemon started by srun inherits Slurm's PMIx client variables; PMIx would
  // take them as its own identity. Collect names first: unsetenv edits environ.
  std::vector<std::string> stale;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    auto name = entry.substr(0, entry.find('='));
    if (IsInheritedPmixVariable(name)) stale.emplace_back(name);
  }
  for (const auto& name : stale) unsetenv(name.c_str());
  // ds21 can hang when a client dies during init; munge costs a round trip per client.
  SetIfUnset("PMIX_MCA_gds", "hash");
  SetIfUnset("PMIX_MCA_psec", "native");

  if (!Upcalls::Claim(server.get())) {
    return Fail(ErrorCode::kInternal, "PMIx server: another PmixServer is active in this process");
  }
  InfoList info;
  const std::string pmix_dir = opt.tmpdir + "/pmix";
  const std::string server_nspace = "psched-daemon-" + std::to_string(opt.node_index);
  info.AddString(PMIX_SERVER_TMPDIR, pmix_dir);
  info.AddString(PMIX_SYSTEM_TMPDIR, pmix_dir);
  info.AddString(PMIX_SERVER_NSPACE, server_nspace);
  info.AddRank(PMIX_SERVER_RANK, static_cast<pmix_rank_t>(opt.node_index));
  info.AddString(PMIX_HOSTNAME, opt.hostname);
  info.AddBool(PMIX_SERVER_TOOL_SUPPORT, true);
  pmix_data_array_t arr;
  if (auto r = info.Convert(&arr); !r) {
    Upcalls::Release(server.get());
    return Fail(r.error());
  }
  pmix_status_t rc =
      PMIx_server_init(Upcalls::Module(), static_cast<pmix_info_t*>(arr.array), arr.size);
  PMIx_Data_array_destruct(&arr);
  if (rc != PMIX_SUCCESS) {
    Upcalls::Release(server.get());
    return Fail(
        Error(ErrorCode::kInternal, std::string("PMIx_server_init: ") + PMIx_Error_string(rc))
            .WithNode(opt.node_index));
  }
  server->initialized_ = true;
  return server;
}

PmixServer::~PmixServer() {
  if (initialized_) {
    // Joins PMIx's progress thread: no upcall can run after this.
    PMIx_server_finalize();
    Upcalls::Release(this);
  }
}

std::vector<uint32_t> PmixServer::AcquireNodeRanks(size_t count) {
  std::vector<uint32_t> out;
  for (uint32_t candidate = 0; out.size() < count; ++candidate) {
    if (!node_ranks_in_use_.contains(candidate)) out.push_back(candidate);
  }
  for (uint32_t r : out) node_ranks_in_use_.insert(r);
  return out;
}

const PmixServer::SessionState* PmixServer::FindByNspace(const std::string& nspace) const {
  for (const auto& [id, s] : sessions_) {
    if (s.info.nspace == nspace) return &s;
  }
  return nullptr;
}

Result<void> PmixServer::RegisterSession(const PmixSessionInfo& si) {
  auto fail = [&](Error e) {
    return Fail(e.Wrap("registering PMIx namespace " + si.nspace)
                    .WithSession(si.session_id)
                    .WithNode(options_.node_index));
  };
  if (auto r = ValidateSessionInfo(si); !r) return fail(r.error());
  if (si.this_node != options_.node_index) {
    return fail(Error(ErrorCode::kInvalidArgument,
                      "session is laid out for node " + std::to_string(si.this_node)));
  }
  if (sessions_.contains(si.session_id) || FindByNspace(si.nspace) != nullptr) {
    return fail(Error(ErrorCode::kInvalidArgument, "session or namespace already registered"));
  }
  auto node_map = GenerateMap("PMIx_generate_regex", NodeListCsv(si), &PMIx_generate_regex);
  if (!node_map) return fail(node_map.error());
  auto proc_map = GenerateMap("PMIx_generate_ppn", ProcMapList(si), &PMIx_generate_ppn);
  if (!proc_map) return fail(proc_map.error());

  const std::vector<int> job_nodes = JobNodes(si);
  const std::vector<uint32_t> local = RanksOnNode(si, si.this_node);
  SessionState state{si, {}};
  std::vector<uint32_t> node_ranks = AcquireNodeRanks(local.size());
  for (size_t i = 0; i < local.size(); ++i) state.node_rank[local[i]] = node_ranks[i];
  auto release_node_ranks = [&] {
    for (uint32_t r : node_ranks) node_ranks_in_use_.erase(r);
  };

  const uint32_t size = si.ranks.size();
  InfoList info;
  info.AddU32(PMIX_UNIV_SIZE, si.universe_size);
  info.AddU32(PMIX_JOB_SIZE, size);
  info.AddU32(PMIX_MAX_PROCS, si.universe_size);
  info.AddString(PMIX_JOBID, si.nspace);
  info.AddU32(PMIX_NUM_NODES, job_nodes.size());
  info.Add(PMIX_NODE_MAP, node_map->c_str(), PMIX_REGEX);
  info.Add(PMIX_PROC_MAP, proc_map->c_str(), PMIX_REGEX);
  info.AddU32(PMIX_JOB_NUM_APPS, 1);
  info.AddU32(PMIX_APPNUM, 0);
  info.AddRank(PMIX_APPLDR, 0);
  info.AddU32(PMIX_APP_SIZE, size);
  info.AddU32(PMIX_LOCAL_SIZE, local.size());
  info.AddU32(PMIX_NODE_SIZE, node_ranks_in_use_.size());
  if (!local.empty()) {
    info.AddString(PMIX_LOCAL_PEERS, JoinRanks(local));
    info.AddRank(PMIX_LOCALLDR, *std::min_element(local.begin(), local.end()));
  }
  info.AddU32(PMIX_NODEID, si.this_node);
  info.AddString(PMIX_HOSTNAME, options_.hostname);
  info.AddString(PMIX_TMPDIR, options_.tmpdir + "/pmix");
  info.AddString(PMIX_NSDIR, options_.tmpdir + "/pmix");
  info.AddBool(PMIX_SPAWNED, !si.parent_nspace.empty());
  if (!si.parent_nspace.empty()) {
    pmix_proc_t parent;
    PMIX_LOAD_PROCID(&parent, si.parent_nspace.c_str(), si.parent_rank);
    info.Add(PMIX_PARENT_ID, &parent, PMIX_PROC);
  }
  for (uint32_t r = 0; r < size; ++r) {
    // Per-proc data for every rank, so a rank can learn any peer's host and node.
    InfoList proc;
    proc.AddRank(PMIX_RANK, r);  // must come first
    proc.AddU32(PMIX_APPNUM, 0);
    proc.AddRank(PMIX_GLOBAL_RANK, r);
    proc.AddRank(PMIX_APP_RANK, r);
    proc.AddU16(PMIX_LOCAL_RANK, si.ranks[r].local_rank);
    proc.AddU32(PMIX_NODEID, si.ranks[r].node);
    proc.AddString(PMIX_HOSTNAME, si.hostnames[si.ranks[r].node]);
    if (auto it = state.node_rank.find(r); it != state.node_rank.end()) {
      proc.AddU16(PMIX_NODE_RANK, it->second);
    } else {
      // Other nodes pick their own node ranks; the local rank is a consistent stand-in.
      proc.AddU16(PMIX_NODE_RANK, si.ranks[r].local_rank);
    }
    pmix_data_array_t darr;
    if (auto c = proc.Convert(&darr); !c) {
      release_node_ranks();
      return fail(c.error());
    }
    info.Add(PMIX_PROC_DATA, &darr, PMIX_DATA_ARRAY);
    PMIx_Data_array_destruct(&darr);
  }
  pmix_data_array_t arr;
  if (auto c = info.Convert(&arr); !c) {
    release_node_ranks();
    return fail(c.error());
  }
  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, si.nspace.c_str());
  auto registered = CallAndWait("PMIx_server_register_nspace", options_.callback_timeout,
                                [&](pmix_op_cbfunc_t cb, void* cbdata) {
                                  return PMIx_server_register_nspace(
                                      ns, local.size(), static_cast<pmix_info_t*>(arr.array),
                                      arr.size, cb, cbdata);
                                });
  if (!registered) {
    // On a timeout PMIx may still read the array later: leak it rather than free it under PMIx.
    if (registered.error().code() != ErrorCode::kTimeout) PMIx_Data_array_destruct(&arr);
    release_node_ranks();
    return fail(registered.error());
  }
  PMIx_Data_array_destruct(&arr);

  for (uint32_t r : local) {
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, si.nspace.c_str(), r);
    auto client = CallAndWait("PMIx_server_register_client(rank " + std::to_string(r) + ")",
                              options_.callback_timeout, [&](pmix_op_cbfunc_t cb, void* cbdata) {
                                return PMIx_server_register_client(&proc, geteuid(), getegid(),
                                                                   nullptr, cb, cbdata);
                              });
    if (!client) {
      sessions_.emplace(si.session_id, std::move(state));
      DeregisterSession(si.session_id);
      return fail(client.error());
    }
  }
  sessions_.emplace(si.session_id, std::move(state));
  return {};
}

Result<EnvList> PmixServer::RankEnvironment(int64_t session, uint32_t rank) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) {
    return Fail(Error(ErrorCode::kNotFound, "PMIx environment: session is not registered")
                    .WithSession(session));
  }
  const SessionState& s = it->second;
  if (!s.node_rank.contains(rank)) {
    return Fail(Error(ErrorCode::kInvalidArgument,
                      "PMIx environment: rank " + std::to_string(rank) + " is not on this node")
                    .WithSession(session)
                    .WithNode(options_.node_index));
  }
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, s.info.nspace.c_str(), rank);
  char** env = nullptr;
  pmix_status_t rc = PMIx_server_setup_fork(&proc, &env);
  EnvList out;
  if (env != nullptr) {
    for (char** e = env; *e != nullptr; ++e) {
      std::string entry(*e);
      auto eq = entry.find('=');
      if (eq != std::string::npos) out.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
      free(*e);
    }
    free(env);
  }
  if (rc != PMIX_SUCCESS) {
    return Fail(
        Error(ErrorCode::kInternal, std::string("PMIx_server_setup_fork: ") + PMIx_Error_string(rc))
            .WithSession(session));
  }
  auto has = [&](const std::string& name) {
    return std::any_of(out.begin(), out.end(), [&](const auto& kv) { return kv.first == name; });
  };
  if (!has("PMIX_MCA_gds")) out.emplace_back("PMIX_MCA_gds", "hash");
  if (!has("PMIX_MCA_psec")) out.emplace_back("PMIX_MCA_psec", "native");
  // Open MPI 4.1 treats a rank as a singleton (forks its own orted) unless it
  // sees a resource manager; these three make it take the direct-launch path.
  out.emplace_back("SLURM_JOBID", s.info.rm_jobid.empty() ? "psched" : s.info.rm_jobid);
  out.emplace_back("SLURM_STEP_ID",
                   s.info.rm_step_id.empty() ? std::to_string(session) : s.info.rm_step_id);
  out.emplace_back("SLURM_NODELIST", NodeListForSlurm(s.info));
  // Emulated nodes share /dev/shm: give each daemon its own vader segments.
  out.emplace_back("OMPI_MCA_btl_vader_backing_directory", options_.tmpdir + "/vader");
  if (options_.loopback_tcp) out.emplace_back("OMPI_MCA_btl_tcp_if_include", "lo");
  return out;
}

void PmixServer::DeregisterSession(int64_t session) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, it->second.info.nspace.c_str());
  for (const auto& [rank, node_rank] : it->second.node_rank) node_ranks_in_use_.erase(node_rank);
  sessions_.erase(it);
  // Deregistering purges the clients too. A failure here leaves PMIx with a stale
  // namespace that a unique nspace never reuses: report and go on.
  auto r = CallAndWait("PMIx_server_deregister_nspace", options_.callback_timeout,
                       [&](pmix_op_cbfunc_t cb, void* cbdata) {
                         PMIx_server_deregister_nspace(ns, cb, cbdata);
                         return PMIX_SUCCESS;
                       });
  if (!r) {
    std::fprintf(stderr, "psched pmix: node %d: %s\n", options_.node_index,
                 r.error().ToString().c_str());
  }
}

ProcsLocation PmixServer::Locate(const std::vector<ProcName>& procs) const {
  std::set<int64_t> sessions;
  std::set<int> nodes;
  std::set<std::string> unknown;
  for (const auto& p : procs) {
    const SessionState* s = FindByNspace(p.nspace);
    if (s == nullptr) {
      unknown.insert(p.nspace);
      continue;
    }
    sessions.insert(s->info.session_id);
    if (p.rank == kWildcardRank) {
      for (int n : JobNodes(s->info)) nodes.insert(n);
    } else if (p.rank < s->info.ranks.size()) {
      nodes.insert(s->info.ranks[p.rank].node);
    }
  }
  return {{sessions.begin(), sessions.end()},
          {nodes.begin(), nodes.end()},
          {unknown.begin(), unknown.end()}};
}

void PmixServer::DirectModexLocal(ProcName proc, BlobDone done) {
  Upcalls::RequestLocalModex(this, std::move(proc), std::move(done));
}

}  // namespace psched::pmix
