// A blocking request/reply exchange with the leader daemon, for psched-ctl and
// psched-alloc (one frame out, one frame back).
#pragma once

#include "common/error.hpp"
#include "proto/messages.hpp"

namespace psched::launcher {

Result<proto::CtlReply> CtlRequest(int fd, proto::MsgType type, const proto::Json& body);

}  // namespace psched::launcher
