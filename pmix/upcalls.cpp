#include "pmix/upcalls.hpp"

#include "pmix/value_codec.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <set>

namespace psched::pmix {
namespace {

// The one process-wide slot (see upcalls.hpp): PMIx's module has no user pointer.
std::atomic<PmixServer*> g_active_server{nullptr};

// The one guard per PMIx entry point: no exception crosses into C.
template <typename F>
pmix_status_t Guard(const char* upcall, F body) {
  try {
    PmixServer* server = g_active_server.load();
    if (server == nullptr || !server->ready()) return PMIX_ERR_NOT_AVAILABLE;
    return body(server);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "psched pmix: %s upcall failed: %s\n", upcall, e.what());
  } catch (...) {
    std::fprintf(stderr, "psched pmix: %s upcall failed: unknown exception\n", upcall);
  }
  return PMIX_ERROR;
}

ProcName Name(const pmix_proc_t& p) {
  return ProcName{std::string(p.nspace), p.rank};
}

std::vector<ProcName> Names(const pmix_proc_t procs[], size_t n) {
  std::vector<ProcName> out;
  for (size_t i = 0; i < n; ++i) out.push_back(Name(procs[i]));
  return out;
}

bool InfoFlag(const pmix_info_t& info) {
  switch (info.value.type) {
    case PMIX_BOOL:
      return info.value.data.flag;
    case PMIX_INT:
      return info.value.data.integer != 0;
    default:
      return true;  // a bare key means "yes"
  }
}

// PMIX_PERSISTENCE's value: PMIx's own type or any integer type holding its number.
Result<Persistence> PersistenceOf(const pmix_value_t& value) {
  int64_t n = -1;
  if (value.type == PMIX_PERSIST) {
    n = value.data.persist;
  } else if (value.type != PMIX_FLOAT && value.type != PMIX_DOUBLE) {
    pmix_status_t status = PMIX_SUCCESS;
    PMIX_VALUE_GET_NUMBER(status, &value, n, int64_t);
    if (status != PMIX_SUCCESS) n = -1;
  }
  if (n >= 0) {
    if (auto p = PersistenceFromPmix(static_cast<uint64_t>(n))) return *p;
  }
  return Fail(ErrorCode::kInvalidArgument,
              "publish: PMIX_PERSISTENCE holds no persistence PMIx defines (type " +
                  std::string(PMIx_Data_type_string(value.type)) + ")");
}

std::vector<std::string> Keys(char** keys) {
  std::vector<std::string> out;
  for (char** k = keys; k != nullptr && *k != nullptr; ++k) out.emplace_back(*k);
  return out;
}

void LogError(const char* what, const Error& e) {
  std::fprintf(stderr, "psched pmix: %s: %s\n", what, e.ToString().c_str());
}

void ReplyOp(const char* what, pmix_op_cbfunc_t cbfunc, void* cbdata, const Result<void>& r) {
  if (!r) LogError(what, r.error());
  if (cbfunc != nullptr) cbfunc(r ? PMIX_SUCCESS : ToPmixStatus(r.error()), cbdata);
}

void ReplyModex(const char* what, pmix_modex_cbfunc_t cbfunc, void* cbdata, Result<Blob> r) {
  if (cbfunc == nullptr) return;
  if (!r) {
    LogError(what, r.error());
    cbfunc(ToPmixStatus(r.error()), nullptr, 0, cbdata, nullptr, nullptr);
    return;
  }
  // PMIx reads the bytes until it calls the release function.
  auto* keep = new std::string(std::move(*r));
  cbfunc(
      PMIX_SUCCESS, keep->data(), keep->size(), cbdata,
      [](void* p) { delete static_cast<std::string*>(p); }, keep);
}

}  // namespace

pmix_status_t ToPmixStatus(const Error& error) {
  switch (error.code()) {
    case ErrorCode::kNotFound:
      return PMIX_ERR_NOT_FOUND;
    case ErrorCode::kTimeout:
      return PMIX_ERR_TIMEOUT;
    case ErrorCode::kResourceExhausted:
      return PMIX_ERR_OUT_OF_RESOURCE;
    case ErrorCode::kPermissionDenied:
      return PMIX_ERR_NO_PERMISSIONS;
    case ErrorCode::kInvalidArgument:
      return PMIX_ERR_BAD_PARAM;
    default:
      return PMIX_ERROR;
  }
}

bool Upcalls::Claim(PmixServer* server) {
  PmixServer* expected = nullptr;
  return g_active_server.compare_exchange_strong(expected, server);
}

void Upcalls::Release(PmixServer* server) {
  PmixServer* expected = server;
  g_active_server.compare_exchange_strong(expected, nullptr);
}

pmix_server_module_t* Upcalls::Module() {
  // Constant after first use; PMIx wants a non-const pointer.
  static pmix_server_module_t module = [] {
    pmix_server_module_t m;
    std::memset(&m, 0, sizeof m);
    m.client_connected = &Upcalls::ClientConnected;
    m.client_finalized = &Upcalls::ClientFinalized;
    m.abort = &Upcalls::Abort;
    m.fence_nb = &Upcalls::FenceNb;
    m.direct_modex = &Upcalls::DirectModex;
    m.publish = &Upcalls::Publish;
    m.lookup = &Upcalls::Lookup;
    m.unpublish = &Upcalls::Unpublish;
    m.spawn = &Upcalls::Spawn;
    m.connect = &Upcalls::Connect;
    m.disconnect = &Upcalls::Disconnect;
    m.job_control = &Upcalls::JobControl;
    m.tool_connected = &Upcalls::ToolConnected;
    return m;
  }();
  return &module;
}

int64_t Upcalls::SessionOf(PmixServer* server, const std::string& nspace) {
  const auto* s = server->FindByNspace(nspace);
  return s == nullptr ? -1 : s->info.session_id;
}

std::vector<int64_t> Upcalls::SessionsOf(PmixServer* server, const std::vector<ProcName>& procs,
                                         std::vector<int>* nodes) {
  ProcsLocation where = server->Locate(procs);
  if (nodes != nullptr) *nodes = std::move(where.nodes);
  return std::move(where.sessions);
}

// --- client lifecycle ------------------------------------------------------------------

pmix_status_t Upcalls::ClientConnected(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*) {
  return Guard("client_connected", [&](PmixServer* server) {
    server->queue().Post([server, p = Name(*proc)] {
      if (int64_t s = SessionOf(server, p.nspace); s >= 0) {
        server->RankConnected(s, p.rank);
        server->services_->ClientConnected(s, p.rank);
      }
    });
    return PMIX_OPERATION_SUCCEEDED;
  });
}

pmix_status_t Upcalls::ClientFinalized(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*) {
  return Guard("client_finalized", [&](PmixServer* server) {
    server->queue().Post([server, p = Name(*proc)] {
      if (int64_t s = SessionOf(server, p.nspace); s >= 0)
        server->services_->ClientFinalized(s, p.rank);
    });
    return PMIX_OPERATION_SUCCEEDED;
  });
}

pmix_status_t Upcalls::Abort(const pmix_proc_t* proc, void*, int status, const char msg[],
                             pmix_proc_t[], size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return Guard("abort", [&](PmixServer* server) {
    server->queue().Post(
        [server, p = Name(*proc), status, m = std::string(msg ? msg : ""), cbfunc, cbdata] {
          // Release the client first: it blocks in PMIx_Abort until we answer.
          if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
          if (int64_t s = SessionOf(server, p.nspace); s >= 0) {
            server->services_->AbortSession(s, p.rank, status, m);
          }
        });
    return PMIX_SUCCESS;
  });
}

// --- collectives and modex -------------------------------------------------------------

pmix_status_t Upcalls::FenceNb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                               size_t ninfo, char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                               void* cbdata) {
  return Guard("fence_nb", [&](PmixServer* server) {
    FenceRequest req;
    req.procs = Names(procs, nprocs);
    for (size_t i = 0; i < ninfo; ++i) {
      if (PMIX_CHECK_KEY(&info[i], PMIX_COLLECT_DATA)) req.collect_data = InfoFlag(info[i]);
    }
    if (data != nullptr && ndata > 0) req.local_data.assign(data, ndata);
    server->queue().Post([server, req = std::move(req), cbfunc, cbdata]() mutable {
      req.sessions = SessionsOf(server, req.procs, &req.nodes);
      server->services_->FenceAcrossNodes(std::move(req), [cbfunc, cbdata](Result<Blob> r) {
        ReplyModex("fence", cbfunc, cbdata, std::move(r));
      });
    });
    return PMIX_SUCCESS;
  });
}

pmix_status_t Upcalls::DirectModex(const pmix_proc_t* proc, const pmix_info_t[], size_t,
                                   pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  return Guard("direct_modex", [&](PmixServer* server) {
    server->queue().Post([server, p = Name(*proc), cbfunc, cbdata] {
      const auto* s = server->FindByNspace(p.nspace);
      if (s == nullptr || p.rank >= s->info.ranks.size()) {
        ReplyModex("direct modex", cbfunc, cbdata,
                   Fail(ErrorCode::kNotFound,
                        "direct modex: unknown proc " + p.nspace + ":" + std::to_string(p.rank)));
        return;
      }
      server->services_->DirectModexRemote(
          p, s->info.ranks[p.rank].node, [cbfunc, cbdata](Result<Blob> r) {
            ReplyModex("direct modex", cbfunc, cbdata, std::move(r));
          });
    });
    return PMIX_SUCCESS;
  });
}

void Upcalls::RequestLocalModex(PmixServer* server, const ProcName& proc, BlobDone done) {
  struct Pending {
    PmixServer* server;
    BlobDone done;
  };
  pmix_proc_t p;
  PMIX_LOAD_PROCID(&p, proc.nspace.c_str(), proc.rank);
  auto* pending = new Pending{server, std::move(done)};
  pmix_status_t rc = PMIx_server_dmodex_request(
      &p,
      [](pmix_status_t status, char* data, size_t size, void* cbdata) {
        // Progress thread: copy the bytes and move on to the loop.
        auto* pd = static_cast<Pending*>(cbdata);
        Result<Blob> r =
            status == PMIX_SUCCESS
                ? Result<Blob>(Blob(data != nullptr ? data : "", size))
                : Fail(ErrorCode::kNotFound,
                       std::string("PMIx_server_dmodex_request: ") + PMIx_Error_string(status));
        pd->server->queue().Post(
            [done = std::move(pd->done), r = std::move(r)]() mutable { done(std::move(r)); });
        delete pd;
      },
      pending);
  if (rc != PMIX_SUCCESS) {
    auto done_now = std::move(pending->done);
    delete pending;
    done_now(Fail(ErrorCode::kNotFound,
                  std::string("PMIx_server_dmodex_request: ") + PMIx_Error_string(rc)));
  }
}

// --- name service ----------------------------------------------------------------------

pmix_status_t Upcalls::Publish(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return Guard("publish", [&](PmixServer* server) {
    std::vector<std::pair<std::string, std::string>> kv;
    Persistence persistence = Persistence::kApplication;  // PMIx's default
    for (size_t i = 0; i < ninfo; ++i) {
      std::string key(info[i].key);
      if (PMIX_CHECK_KEY(&info[i], PMIX_PERSISTENCE)) {
        auto p = PersistenceOf(info[i].value);
        if (!p) {
          LogError("publish", p.error());
          return ToPmixStatus(p.error());
        }
        persistence = *p;
        continue;
      }
      if (key.starts_with("pmix.")) continue;  // other directives: range, timeout
      auto packed = PackValue(info[i].value);
      if (!packed) {
        LogError("publish", packed.error());
        return ToPmixStatus(packed.error());
      }
      kv.emplace_back(key, std::move(*packed));
    }
    server->queue().Post(
        [server, p = Name(*proc), kv = std::move(kv), persistence, cbfunc, cbdata]() mutable {
          server->services_->Publish(
              Publisher{p.nspace, p.rank}, std::move(kv), persistence,
              [cbfunc, cbdata](Result<void> r) { ReplyOp("publish", cbfunc, cbdata, r); });
        });
    return PMIX_SUCCESS;
  });
}

pmix_status_t Upcalls::Lookup(const pmix_proc_t* proc, char** keys, const pmix_info_t info[],
                              size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void* cbdata) {
  return Guard("lookup", [&](PmixServer* server) {
    bool wait = false;
    std::optional<std::chrono::milliseconds> timeout;
    for (size_t i = 0; i < ninfo; ++i) {
      if (PMIX_CHECK_KEY(&info[i], PMIX_WAIT)) wait = InfoFlag(info[i]);
      if (PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT) && info[i].value.type == PMIX_INT &&
          info[i].value.data.integer > 0) {
        timeout = std::chrono::seconds(info[i].value.data.integer);
      }
    }
    server->queue().Post(
        [server, p = Name(*proc), k = Keys(keys), wait, timeout, cbfunc, cbdata]() mutable {
          server->services_->Lookup(
              Publisher{p.nspace, p.rank}, std::move(k), wait, timeout,
              [cbfunc, cbdata](Result<std::vector<PublishedValue>> r) {
                if (!r) {
                  // A miss is an answer, not a failure: clients poll for names.
                  if (r.error().code() != ErrorCode::kNotFound) LogError("lookup", r.error());
                  cbfunc(ToPmixStatus(r.error()), nullptr, 0, cbdata);
                  return;
                }
                pmix_pdata_t* pdata = nullptr;
                PMIX_PDATA_CREATE(pdata, r->size());
                for (size_t i = 0; i < r->size(); ++i) {
                  const auto& v = (*r)[i];
                  PMIX_LOAD_PROCID(&pdata[i].proc, v.publisher.nspace.c_str(), v.publisher.rank);
                  PMIX_LOAD_KEY(pdata[i].key, v.key.c_str());
                  if (auto u = UnpackValue(v.value, &pdata[i].value); !u)
                    LogError("lookup", u.error());
                }
                cbfunc(PMIX_SUCCESS, pdata, r->size(), cbdata);  // PMIx copies before returning
                PMIX_PDATA_FREE(pdata, r->size());
              });
        });
    return PMIX_SUCCESS;
  });
}

pmix_status_t Upcalls::Unpublish(const pmix_proc_t* proc, char** keys, const pmix_info_t[], size_t,
                                 pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return Guard("unpublish", [&](PmixServer* server) {
    server->queue().Post([server, p = Name(*proc), k = Keys(keys), cbfunc, cbdata]() mutable {
      server->services_->Unpublish(
          Publisher{p.nspace, p.rank}, std::move(k),
          [cbfunc, cbdata](Result<void> r) { ReplyOp("unpublish", cbfunc, cbdata, r); });
    });
    return PMIX_SUCCESS;
  });
}

// --- dynamic processes -----------------------------------------------------------------

pmix_status_t Upcalls::Spawn(const pmix_proc_t* proc, const pmix_info_t[], size_t,
                             const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                             void* cbdata) {
  return Guard("spawn", [&](PmixServer* server) {
    SpawnRequest req;
    req.requestor = Name(*proc);
    for (size_t a = 0; a < napps; ++a) {
      SpawnApp app;
      app.cmd = apps[a].cmd ? apps[a].cmd : "";
      for (char** v = apps[a].argv; v != nullptr && *v != nullptr; ++v) app.argv.emplace_back(*v);
      for (char** v = apps[a].env; v != nullptr && *v != nullptr; ++v) app.env.emplace_back(*v);
      app.cwd = apps[a].cwd ? apps[a].cwd : "";
      app.max_procs = apps[a].maxprocs;
      req.apps.push_back(std::move(app));
    }
    server->queue().Post([server, req = std::move(req), cbfunc, cbdata]() mutable {
      req.parent_session = SessionOf(server, req.requestor.nspace);
      server->services_->Spawn(std::move(req), [cbfunc, cbdata](Result<std::string> r) {
        pmix_nspace_t ns;
        PMIX_LOAD_NSPACE(ns, r ? r->c_str() : "");
        if (!r) LogError("spawn", r.error());
        cbfunc(r ? PMIX_SUCCESS : ToPmixStatus(r.error()), ns, cbdata);
      });
    });
    return PMIX_SUCCESS;
  });
}

pmix_status_t Upcalls::Connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[],
                               size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return Guard("connect", [&](PmixServer* server) {
    server->queue().Post([server, p = Names(procs, nprocs), cbfunc, cbdata]() mutable {
      server->services_->Connect(std::move(p), [cbfunc, cbdata](Result<void> r) {
        ReplyOp("connect", cbfunc, cbdata, r);
      });
    });
    return PMIX_SUCCESS;
  });
}

pmix_status_t Upcalls::Disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[],
                                  size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return Guard("disconnect", [&](PmixServer* server) {
    server->queue().Post([server, p = Names(procs, nprocs), cbfunc, cbdata]() mutable {
      server->services_->Disconnect(std::move(p), [cbfunc, cbdata](Result<void> r) {
        ReplyOp("disconnect", cbfunc, cbdata, r);
      });
    });
    return PMIX_SUCCESS;
  });
}

// --- tools -----------------------------------------------------------------------------

pmix_status_t Upcalls::JobControl(const pmix_proc_t* requestor, const pmix_proc_t targets[],
                                  size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                  pmix_info_cbfunc_t cbfunc, void* cbdata) {
  return Guard("job_control", [&](PmixServer* server) {
    JobControlRequest req;
    req.requestor = Name(*requestor);
    bool known = false;
    for (size_t i = 0; i < ndirs; ++i) {
      const pmix_info_t& d = directives[i];
      if (PMIX_CHECK_KEY(&d, PMIX_JOB_CTRL_PAUSE)) {
        req.action = JobControlAction::kPause, known = true;
      } else if (PMIX_CHECK_KEY(&d, PMIX_JOB_CTRL_RESUME)) {
        req.action = JobControlAction::kResume, known = true;
      } else if (PMIX_CHECK_KEY(&d, PMIX_JOB_CTRL_TERMINATE)) {
        req.action = JobControlAction::kTerminate, known = true;
      } else if (PMIX_CHECK_KEY(&d, PMIX_JOB_CTRL_KILL)) {
        req.action = JobControlAction::kKill, known = true;
      } else if (PMIX_CHECK_KEY(&d, PMIX_JOB_CTRL_SIGNAL) && d.value.type == PMIX_INT) {
        req.action = JobControlAction::kSignal;
        req.signal = d.value.data.integer;
        known = true;
      }
    }
    if (!known) return PMIX_ERR_NOT_SUPPORTED;
    std::vector<ProcName> t =
        ntargets > 0 ? Names(targets, ntargets)
                     : std::vector<ProcName>{ProcName{req.requestor.nspace, kWildcardRank}};
    server->queue().Post([server, req = std::move(req), t = std::move(t), cbfunc,
                          cbdata]() mutable {
      ProcsLocation where = server->Locate(t);
      req.sessions = std::move(where.sessions);
      req.unknown_nspaces = std::move(where.unknown_nspaces);
      if (req.sessions.empty() && req.unknown_nspaces.empty()) {
        if (cbfunc != nullptr) cbfunc(PMIX_ERR_NOT_FOUND, nullptr, 0, cbdata, nullptr, nullptr);
        return;
      }
      server->services_->JobControl(std::move(req), [cbfunc, cbdata](Result<void> r) {
        if (!r) LogError("job control", r.error());
        if (cbfunc != nullptr) {
          cbfunc(r ? PMIX_SUCCESS : ToPmixStatus(r.error()), nullptr, 0, cbdata, nullptr, nullptr);
        }
      });
    });
    return PMIX_SUCCESS;
  });
}

void Upcalls::ToolConnected(pmix_info_t*, size_t, pmix_tool_connection_cbfunc_t cbfunc,
                            void* cbdata) {
  pmix_status_t rc = Guard("tool_connected", [&](PmixServer* server) {
    server->queue().Post([server, cbfunc, cbdata] {
      // Each tool gets its own namespace, unique on this daemon.
      pmix_proc_t tool;
      std::string ns = "psched-tool-" + std::to_string(server->options_.node_index) + "-" +
                       std::to_string(server->next_tool_id_++);
      PMIX_LOAD_PROCID(&tool, ns.c_str(), 0);
      if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, &tool, cbdata);
    });
    return PMIX_SUCCESS;
  });
  if (rc != PMIX_SUCCESS && cbfunc != nullptr) cbfunc(rc, nullptr, cbdata);
}

}  // namespace psched::pmix
