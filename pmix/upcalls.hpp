// The C entry points PMIx calls on its progress thread (pmix_server_module_t).
//
// Each upcall copies its arguments, posts a closure to the server's UpcallQueue
// and returns at once; the closure runs on the event-loop thread, calls
// PmixHostServices and finally PMIx's cbfunc. PMIx's module callbacks carry no
// user pointer, and PMIx is one library per process, so the active server is
// held in one process-wide slot that Claim/Release guard.
#pragma once

#include <pmix.h>
#include <pmix_server.h>

#include "pmix/pmix_server.hpp"

namespace psched::pmix {

class Upcalls {
 public:
  // Makes `server` the target of upcalls; false if another server holds the slot.
  static bool Claim(PmixServer* server);
  static void Release(PmixServer* server);
  static pmix_server_module_t* Module();

  // PMIx_server_dmodex_request for a local proc; `done` runs on the loop thread.
  static void RequestLocalModex(PmixServer* server, const ProcName& proc, BlobDone done);

 private:
  // pmix_server_module_t entries (progress thread).
  static pmix_status_t ClientConnected(const pmix_proc_t* proc, void* server_object,
                                       pmix_op_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t ClientFinalized(const pmix_proc_t* proc, void* server_object,
                                       pmix_op_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t Abort(const pmix_proc_t* proc, void* server_object, int status,
                             const char msg[], pmix_proc_t procs[], size_t nprocs,
                             pmix_op_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t FenceNb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                               size_t ninfo, char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                               void* cbdata);
  static pmix_status_t DirectModex(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo,
                                   pmix_modex_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t Publish(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t Lookup(const pmix_proc_t* proc, char** keys, const pmix_info_t info[],
                              size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t Unpublish(const pmix_proc_t* proc, char** keys, const pmix_info_t info[],
                                 size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t Spawn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo,
                             const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                             void* cbdata);
  static pmix_status_t Connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                               size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t Disconnect(const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                  void* cbdata);
  static pmix_status_t JobControl(const pmix_proc_t* requestor, const pmix_proc_t targets[],
                                  size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                  pmix_info_cbfunc_t cbfunc, void* cbdata);
  static void ToolConnected(pmix_info_t* info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                            void* cbdata);

  // Loop-thread helpers with access to the server's sessions.
  static int64_t SessionOf(PmixServer* server, const std::string& nspace);
  static std::vector<int64_t> SessionsOf(PmixServer* server, const std::vector<ProcName>& procs,
                                         std::vector<int>* nodes);
};

// PMIx has no place for our message text: map the code, the caller logs the text.
pmix_status_t ToPmixStatus(const Error& error);

}  // namespace psched::pmix
