#include "pmix/pmix_server.hpp"

#include <event2/event.h>
#include <pmix.h>
#include <pmix_server.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "pmix/default_events.h"
#include "pmix/stale_dirs.hpp"
#include "pmix/upcalls.hpp"

// libpmix's own progress-engine calls (exported, internal header, C linkage): the
// only way libpmix 4.2 offers to run its event base on the host's thread.
extern "C" {
#include <src/runtime/pmix_progress_threads.h>
}

extern char** environ;

namespace psched::pmix {
namespace {

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
  Result<void> Convert(pmix_data_array_t* out) const {
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

// One asynchronous registration: the namespace, then every local client. Owned by
// PmixServer::registering_ until it finishes (success, error or timeout) and by each
// PMIx call still owed a callback: PMIx reads `info` until register_nspace answers,
// so a registration PMIx never answers is leaked rather than freed under it.
struct PmixServer::Registration {
  PmixServer* server = nullptr;
  SessionState state;
  std::vector<uint32_t> local;
  pmix_data_array_t info{};
  bool info_built = false;
  RegisterDone done;
  event* timer = nullptr;
  size_t clients_pending = 0;
  bool finished = false;           // done has run (or the server dropped it)
  bool nspace_registered = false;  // PMIx accepted the namespace
  ~Registration() {
    if (info_built) PMIx_Data_array_destruct(&info);
  }
};

namespace {

// What travels through PMIx's cbdata: one reference to the registration and
// which call answered (-1: the namespace, else the client's rank).
struct RegistrationStep {
  std::shared_ptr<PmixServer::Registration> reg;
  int64_t rank;
};

}  // namespace

bool PmixServer::IsInheritedPmixVariable(std::string_view name) {
  return name.starts_with("PMIX_") && !name.starts_with("PMIX_MCA_");
}

void RunOutLeftoverLoopExit(event_base* base) {
  event_base_loop(base, EVLOOP_NONBLOCK);
}

Result<std::unique_ptr<PmixServer>> PmixServer::Init(PmixServerOptions options, event_base* base,
                                                     PmixHostServices* services) {
  if (options.tmpdir.empty() || options.tmpdir.size() > kMaxDaemonDirLength) {
    return Fail(ErrorCode::kInvalidArgument,
                "PMIx server tmpdir '" + options.tmpdir + "' is empty or longer than " +
                    std::to_string(kMaxDaemonDirLength) + " characters");
  }
  if (options.hostname.empty())
    return Fail(ErrorCode::kInvalidArgument, "PMIx server: empty hostname");
  std::unique_ptr<PmixServer> server(new PmixServer(std::move(options), base, services));
  const auto& opt = server->options_;
  // TMPDIR/sessions/kept is never removed by a rank (see SessionsDir), so TMPDIR/sessions
  // is never empty: a rank that ends never removes it while a rank of another session
  // makes its directories in it.
  for (const auto& dir : {opt.tmpdir, opt.tmpdir + "/pmix", opt.tmpdir + "/vader",
                          server->SessionsDir(), server->SessionsDir() + "/kept"}) {
    if (auto r = MakeDir(dir); !r) return Fail(r.error().Wrap("PMIx server init"));
  }
  // Tells a later daemon whether this directory's owner still lives (stale_dirs.hpp).
  if (auto r = WriteOwner(opt.tmpdir); !r) return Fail(r.error().Wrap("PMIx server init"));
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
  if (base == nullptr) {
    // Take over PMIx's engine: another reference to its shared base, then its thread
    // stops (the base and PMIx's events on it stay). PMIx_server_finalize pauses the
    // thread itself first, so a paused engine is a state PMIx knows how to end.
    server->base_ = pmix_progress_thread_init(nullptr);
    if (server->base_ == nullptr || pmix_progress_thread_pause(nullptr) != PMIX_SUCCESS) {
      return Fail(Error(ErrorCode::kInternal, "PMIx server: cannot take over PMIx's event base")
                      .WithNode(opt.node_index));
    }
    server->owns_pmix_loop_ = true;
    RunOutLeftoverLoopExit(server->base_);
  }
  auto queue = UpcallQueue::Create(server->base_);
  if (!queue) return Fail(queue.error());
  server->queue_ = std::move(*queue);
  server->ready_ = true;
  return server;
}

PmixServer::~PmixServer() {
  // Registrations in flight end without their `done`: the caller is going away too.
  for (auto& [id, reg] : registering_) {
    reg->finished = true;
    reg->done = nullptr;
    if (reg->timer != nullptr) event_free(reg->timer);
    reg->timer = nullptr;
  }
  registering_.clear();
  if (initialized_ && quarantined_ > 0) {
    // PMIx_server_finalize destroys every namespace, the quarantined ones too, and
    // then blocks on the memory the double-released rank record corrupted (seen:
    // pmix_rte_finalize waiting on a mutex forever). This process is going away:
    // stop the upcalls, leave PMIx's thread alone and leak the queue, so a Post
    // still running on that thread writes to live memory.
    Upcalls::Release(this);
    static_cast<void>(queue_.release());
    std::fprintf(stderr,
                 "psched pmix: node %d: PMIx not finalized: %zu namespace(s) quarantined "
                 "after a client died in its handshake\n",
                 options_.node_index, quarantined_);
    return;
  }
  if (initialized_) {
    if (owns_pmix_loop_) {
      // PMIx_server_finalize waits on PMIx's own thread before it stops it: give the
      // thread back, with nothing of ours left to run there (the caller has freed its
      // events; queued upcalls are dropped). The base keeps Init's extra reference.
      Upcalls::Release(this);
      queue_->Close();
      pmix_progress_thread_resume(nullptr);
    }
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

std::string PmixServer::SessionsDir() const {
  return options_.tmpdir + "/sessions";
}

std::string PmixServer::NamespaceDir(int64_t session) const {
  return SessionsDir() + "/" + std::to_string(session);
}

const PmixServer::SessionState* PmixServer::FindByNspace(const std::string& nspace) const {
  for (const auto& [id, s] : sessions_) {
    if (s.info.nspace == nspace) return &s;
  }
  return nullptr;
}

Result<void> PmixServer::BuildNspaceInfo(const PmixSessionInfo& si,
                                         const std::map<uint32_t, uint32_t>& node_rank,
                                         const std::string& node_map, const std::string& proc_map,
                                         pmix_data_array_t* out) const {
  const std::vector<int> job_nodes = JobNodes(si);
  const std::vector<uint32_t> local = RanksOnNode(si, si.this_node);
  const uint32_t size = si.ranks.size();
  InfoList info;
  info.AddU32(PMIX_UNIV_SIZE, si.universe_size);
  info.AddU32(PMIX_JOB_SIZE, size);
  info.AddU32(PMIX_MAX_PROCS, si.universe_size);
  info.AddString(PMIX_JOBID, si.nspace);
  info.AddU32(PMIX_NUM_NODES, job_nodes.size());
  info.Add(PMIX_NODE_MAP, node_map.c_str(), PMIX_REGEX);
  info.Add(PMIX_PROC_MAP, proc_map.c_str(), PMIX_REGEX);
  // MPI_Comm_spawn_multiple's apps: each rank's PMIX_APPNUM is its MPI_APPNUM.
  const std::vector<AppSpan> apps = Apps(si);
  const std::vector<uint32_t> app_of = AppOfRank(si);
  info.AddU32(PMIX_JOB_NUM_APPS, apps.size());
  if (apps.size() == 1) {
    info.AddU32(PMIX_APPNUM, 0);
    info.AddRank(PMIX_APPLDR, 0);
    info.AddU32(PMIX_APP_SIZE, size);
  } else {
    for (uint32_t a = 0; a < apps.size(); ++a) {
      InfoList app;
      app.AddU32(PMIX_APPNUM, a);  // must come first
      app.AddU32(PMIX_APP_SIZE, apps[a].size);
      app.AddRank(PMIX_APPLDR, apps[a].leader);
      pmix_data_array_t darr;
      if (auto c = app.Convert(&darr); !c) return Fail(c.error());
      info.Add(PMIX_APP_INFO_ARRAY, &darr, PMIX_DATA_ARRAY);
      PMIx_Data_array_destruct(&darr);
    }
  }
  info.AddU32(PMIX_LOCAL_SIZE, local.size());
  info.AddU32(PMIX_NODE_SIZE, node_ranks_in_use_.size());
  if (!local.empty()) {
    info.AddString(PMIX_LOCAL_PEERS, JoinRanks(local));
    info.AddRank(PMIX_LOCALLDR, *std::min_element(local.begin(), local.end()));
  }
  info.AddU32(PMIX_NODEID, si.this_node);
  info.AddString(PMIX_HOSTNAME, options_.hostname);
  // Open MPI 4.1's session directories, apart from the PMIx server's own directory: it
  // takes PMIX_TMPDIR for its top session directory and PMIX_NSDIR for its job's, puts
  // each rank's in that as RANK, and a rank that ends deletes the files in all three and
  // each one left empty. With both the server's directory, the first rank to end deleted
  // the server's rendezvous files (tools could no longer find it), and ranks of equal
  // number in two sessions on a node (a parent and its spawned child, both rank 0) shared
  // one directory that the first to end removed under the other (ORTE_ERROR_LOG in
  // session_dir.c, issue #26).
  info.AddString(PMIX_TMPDIR, SessionsDir());
  info.AddString(PMIX_NSDIR, NamespaceDir(si.session_id));
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
    proc.AddU32(PMIX_APPNUM, app_of[r]);
    proc.AddRank(PMIX_GLOBAL_RANK, r);
    proc.AddRank(PMIX_APP_RANK, r - apps[app_of[r]].leader);
    proc.AddRank(PMIX_APPLDR, apps[app_of[r]].leader);
    proc.AddU16(PMIX_LOCAL_RANK, si.ranks[r].local_rank);
    proc.AddU32(PMIX_NODEID, si.ranks[r].node);
    proc.AddString(PMIX_HOSTNAME, si.hostnames[si.ranks[r].node]);
    if (auto it = node_rank.find(r); it != node_rank.end()) {
      proc.AddU16(PMIX_NODE_RANK, it->second);
    } else {
      // Other nodes pick their own node ranks; the local rank is a consistent stand-in.
      proc.AddU16(PMIX_NODE_RANK, si.ranks[r].local_rank);
    }
    pmix_data_array_t darr;
    if (auto c = proc.Convert(&darr); !c) return Fail(c.error());
    info.Add(PMIX_PROC_DATA, &darr, PMIX_DATA_ARRAY);
    PMIx_Data_array_destruct(&darr);
  }
  return info.Convert(out);
}

void PmixServer::RegisterSession(const PmixSessionInfo& si, RegisterDone done) {
  auto fail = [&](Error e) {
    done(Fail(e.Wrap("registering PMIx namespace " + si.nspace)
                  .WithSession(si.session_id)
                  .WithNode(options_.node_index)));
  };
  if (auto r = ValidateSessionInfo(si); !r) return fail(r.error());
  if (si.this_node != options_.node_index) {
    return fail(Error(ErrorCode::kInvalidArgument,
                      "session is laid out for node " + std::to_string(si.this_node)));
  }
  if (sessions_.contains(si.session_id) || registering_.contains(si.session_id) ||
      FindByNspace(si.nspace) != nullptr) {
    return fail(Error(ErrorCode::kInvalidArgument, "session or namespace already registered"));
  }
  for (const auto& [id, pending] : registering_) {
    if (pending->state.info.nspace == si.nspace)
      return fail(Error(ErrorCode::kInvalidArgument, "namespace already being registered"));
  }
  // Its clients' default event handlers must be kept (default_events.c), so that a
  // session they connect to can tell them it failed (NotifyProcsFailed). Only on the
  // thread that runs PMIx's base: the list is PMIx's.
  if (owns_pmix_loop_ && psched_pmix_ensure_default_events() < 0)
    return fail(Error(ErrorCode::kResourceExhausted, "PMIx default event entry: out of memory"));
  auto node_map = GenerateMap("PMIx_generate_regex", NodeListCsv(si), &PMIx_generate_regex);
  if (!node_map) return fail(node_map.error());
  auto proc_map = GenerateMap("PMIx_generate_ppn", ProcMapList(si), &PMIx_generate_ppn);
  if (!proc_map) return fail(proc_map.error());

  auto reg = std::make_shared<Registration>();
  reg->server = this;
  reg->state.info = si;
  reg->state.nodes = JobNodes(si);
  reg->local = RanksOnNode(si, si.this_node);
  std::vector<uint32_t> node_ranks = AcquireNodeRanks(reg->local.size());
  for (size_t i = 0; i < reg->local.size(); ++i)
    reg->state.node_rank[reg->local[i]] = node_ranks[i];
  if (auto b = BuildNspaceInfo(si, reg->state.node_rank, *node_map, *proc_map, &reg->info); !b) {
    for (uint32_t r : node_ranks) node_ranks_in_use_.erase(r);
    return fail(b.error());
  }
  reg->info_built = true;
  reg->done = std::move(done);
  registering_[si.session_id] = reg;

  reg->timer = evtimer_new(base_, &PmixServer::OnRegistrationTimeout, reg.get());
  const auto limit = options_.callback_timeout;
  timeval tv{static_cast<time_t>(limit.count() / 1000),
             static_cast<suseconds_t>((limit.count() % 1000) * 1000)};
  if (reg->timer != nullptr) evtimer_add(reg->timer, &tv);

  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, si.nspace.c_str());
  auto* step = new RegistrationStep{reg, -1};
  pmix_status_t rc =
      PMIx_server_register_nspace(ns, reg->local.size(), static_cast<pmix_info_t*>(reg->info.array),
                                  reg->info.size, &PmixServer::OnPmixOp, step);
  if (rc == PMIX_OPERATION_SUCCEEDED) {
    delete step;
    return RegistrationStepDone(reg, -1, PMIX_SUCCESS);
  }
  if (rc != PMIX_SUCCESS) {
    delete step;
    return RegistrationStepDone(reg, -1, rc);
  }
}

void PmixServer::OnPmixOp(pmix_status_t status, void* cbdata) {
  // PMIx's progress thread: hand the answer to the loop.
  auto* step = static_cast<RegistrationStep*>(cbdata);
  std::shared_ptr<Registration> reg = std::move(step->reg);
  const int64_t rank = step->rank;
  delete step;
  PmixServer* server = reg->server;
  server->queue().Post(
      [server, reg, rank, status] { server->RegistrationStepDone(reg, rank, status); });
}

void PmixServer::RegistrationStepDone(const std::shared_ptr<Registration>& reg, int64_t rank,
                                      pmix_status_t status) {
  const PmixSessionInfo& si = reg->state.info;
  if (rank < 0 && status == PMIX_SUCCESS) reg->nspace_registered = true;
  if (reg->finished) {
    // Answered after a timeout (or after the session was dropped): PMIx now holds
    // a namespace nobody will use. Purge it once, when its own answer arrives.
    if (rank < 0 && status == PMIX_SUCCESS) PurgeNamespace(si.nspace);
    return;
  }
  auto fail = [&](Error e) {
    FinishRegistration(reg, Fail(e.Wrap("registering PMIx namespace " + si.nspace)
                                     .WithSession(si.session_id)
                                     .WithNode(options_.node_index)));
  };
  if (status != PMIX_SUCCESS) {
    std::string what = rank < 0 ? "PMIx_server_register_nspace"
                                : "PMIx_server_register_client(rank " + std::to_string(rank) + ")";
    return fail(Error(ErrorCode::kInternal, what + ": " + PMIx_Error_string(status)));
  }
  if (rank >= 0) {
    if (--reg->clients_pending == 0) FinishRegistration(reg, {});
    return;
  }
  if (reg->local.empty()) return FinishRegistration(reg, {});
  // The namespace is in: register every local client at once.
  reg->clients_pending = reg->local.size();
  for (uint32_t r : reg->local) {
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, si.nspace.c_str(), r);
    auto* step = new RegistrationStep{reg, r};
    pmix_status_t rc = PMIx_server_register_client(&proc, geteuid(), getegid(), nullptr,
                                                   &PmixServer::OnPmixOp, step);
    if (rc == PMIX_SUCCESS) continue;
    delete step;
    if (rc == PMIX_OPERATION_SUCCEEDED) {
      if (--reg->clients_pending == 0) return FinishRegistration(reg, {});
      continue;
    }
    return fail(Error(ErrorCode::kInternal, "PMIx_server_register_client(rank " +
                                                std::to_string(r) + "): " + PMIx_Error_string(rc)));
  }
}

void PmixServer::OnRegistrationTimeout(int, short, void* arg) {
  auto* raw = static_cast<Registration*>(arg);
  PmixServer* server = raw->server;
  auto it = server->registering_.find(raw->state.info.session_id);
  if (it == server->registering_.end() || it->second.get() != raw) return;
  std::shared_ptr<Registration> reg = it->second;
  const auto& si = reg->state.info;
  server->FinishRegistration(
      reg,
      Fail(Error(ErrorCode::kTimeout,
                 "registering PMIx namespace " + si.nspace + ": no callback from PMIx within " +
                     std::to_string(server->options_.callback_timeout.count()) + " ms")
               .WithSession(si.session_id)
               .WithNode(server->options_.node_index)));
}

void PmixServer::FinishRegistration(const std::shared_ptr<Registration>& reg, Result<void> r) {
  if (reg->finished) return;
  reg->finished = true;
  if (reg->timer != nullptr) {
    event_free(reg->timer);
    reg->timer = nullptr;
  }
  const int64_t id = reg->state.info.session_id;
  registering_.erase(id);
  if (r) {
    sessions_.emplace(id, reg->state);
  } else {
    for (const auto& [rank, node_rank] : reg->state.node_rank) node_ranks_in_use_.erase(node_rank);
    // A namespace PMIx accepted before a client failed is purged now; one it has
    // not answered yet is purged when it does (RegistrationStepDone).
    if (reg->nspace_registered) PurgeNamespace(reg->state.info.nspace);
  }
  RegisterDone done = std::move(reg->done);
  if (done) done(std::move(r));
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
  // mpirun's name for PMIX_NODE_RANK (the node service sets the rest of OMPI_COMM_WORLD_*).
  out.emplace_back("OMPI_COMM_WORLD_NODE_RANK", std::to_string(s.node_rank.at(rank)));
  // Emulated nodes share /dev/shm: give each daemon its own vader segments.
  out.emplace_back("OMPI_MCA_btl_vader_backing_directory", options_.tmpdir + "/vader");
  if (options_.loopback_tcp) out.emplace_back("OMPI_MCA_btl_tcp_if_include", "lo");
  return out;
}

EnvList PmixServer::EnvDefaults() const {
  EnvList out;
  if (options_.skip_fabric_probe) {
    out.emplace_back("OMPI_MCA_pml", "ob1");
    out.emplace_back("OMPI_MCA_osc", "sm,rdma,ucx,pt2pt");
  }
  return out;
}

void PmixServer::RankConnected(int64_t session, uint32_t rank) {
  if (auto it = sessions_.find(session); it != sessions_.end()) it->second.connected.insert(rank);
}

void PmixServer::RankEnded(int64_t session, uint32_t rank, int code) {
  auto it = sessions_.find(session);
  if (it == sessions_.end() || !it->second.node_rank.contains(rank)) return;
  SessionState& s = it->second;
  // The connect upcall comes after PMIx's last handshake write: a rank seen connected
  // got through it. A rank that exits on its own does not vanish mid-handshake; one
  // killed by a signal (its own death or the session's kill) may have.
  if (code > 128 && !s.connected.contains(rank) && s.killed_unconnected < 0)
    s.killed_unconnected = static_cast<int>(rank);
}

void PmixServer::DeregisterSession(int64_t session) {
  if (auto pending = registering_.find(session); pending != registering_.end()) {
    // Still registering: give up on it (PMIx's late answer purges the namespace).
    std::shared_ptr<Registration> reg = pending->second;
    reg->done = nullptr;
    FinishRegistration(reg, Fail(ErrorCode::kNotFound, "session ended while registering"));
    return;
  }
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  const int suspect = it->second.killed_unconnected;
  const std::string nspace = it->second.info.nspace;
  for (const auto& [rank, node_rank] : it->second.node_rank) node_ranks_in_use_.erase(node_rank);
  sessions_.erase(it);
  // What its ranks left there (one killed cannot clean up after itself); most sessions
  // made none (only Open MPI ranks do), and then this is one failed lstat.
  std::error_code ignored;
  std::filesystem::remove_all(NamespaceDir(session), ignored);
  if (suspect >= 0) {
    // See the header: purging this namespace could corrupt PMIx's heap (the libpmix
    // 4.2.2 double release) and hang its progress thread. Unique nspaces are never
    // reused, so leaving it costs memory only.
    ++quarantined_;
    std::fprintf(stderr,
                 "psched pmix: node %d: session %ld: rank %d was killed before its PMIx "
                 "handshake completed; namespace %s stays registered (libpmix 4.2.2 "
                 "connection-handler double release)\n",
                 options_.node_index, static_cast<long>(session), suspect, nspace.c_str());
    return;
  }
  PurgeNamespace(nspace);
}

void PmixServer::PurgeNamespace(const std::string& nspace) {
  // Deregistering purges the clients too; nothing waits for it. A failure leaves
  // PMIx with a stale namespace that a unique nspace never reuses: reported.
  struct Purge {
    PmixServer* server;
    std::string nspace;
  };
  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, nspace.c_str());
  PMIx_server_deregister_nspace(
      ns,
      [](pmix_status_t status, void* cbdata) {
        auto* p = static_cast<Purge*>(cbdata);
        if (status != PMIX_SUCCESS) {
          std::fprintf(stderr, "psched pmix: node %d: PMIx_server_deregister_nspace(%s): %s\n",
                       p->server->options_.node_index, p->nspace.c_str(),
                       PMIx_Error_string(status));
        }
        delete p;
      },
      new Purge{this, nspace});
}

// Runs on every fence: sorted vectors, not sets (a 64-node job's fence spent 8% of the
// daemon's time building std::sets here).
ProcsLocation PmixServer::Locate(const std::vector<ProcName>& procs) const {
  ProcsLocation where;
  for (const auto& p : procs) {
    const SessionState* s = FindByNspace(p.nspace);
    if (s == nullptr) {
      where.unknown_nspaces.push_back(p.nspace);
      continue;
    }
    where.sessions.push_back(s->info.session_id);
    if (p.rank == kWildcardRank) {
      where.nodes.insert(where.nodes.end(), s->nodes.begin(), s->nodes.end());
    } else if (p.rank < s->info.ranks.size()) {
      where.nodes.push_back(s->info.ranks[p.rank].node);
    }
  }
  auto sort_unique = [](auto& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  sort_unique(where.sessions);
  sort_unique(where.nodes);
  sort_unique(where.unknown_nspaces);
  return where;
}

void PmixServer::DirectModexLocal(const ProcName& proc, BlobDone done) {
  Upcalls::RequestLocalModex(this, proc, std::move(done));
}

}  // namespace psched::pmix
