// A blocking request/reply exchange with the leader daemon, for psched-ctl and
// psched-alloc (one frame out, one frame back).
#pragma once

#include "common/error.hpp"
#include "proto/allocation_status.hpp"
#include "proto/messages.hpp"

namespace psched::launcher {

// `type`: kCtlStatus, kCtlShutdown, or kCtlKill, kCtlSuspend, kCtlResume of `session`.
Result<proto::CtlReply> CtlRequest(int fd, proto::MsgType type, int64_t session = 0);

// The report of a reply to kCtlStatus: a reply that is not ok, or has none, is an error.
Result<proto::AllocationStatus> StatusReport(proto::CtlReply reply);

}  // namespace psched::launcher
