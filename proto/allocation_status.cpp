#include "proto/allocation_status.hpp"

namespace psched::proto {

Result<CtlReply> DecodeCtlReply(const Frame& frame) {
  auto reply = Decode<CtlReply>(frame);
  if (!reply || !reply->status || reply->status->version == kAllocationStatusVersion) return reply;
  return Fail(ErrorCode::kProtocol,
              "the status is of version " + std::to_string(reply->status->version) +
                  ", this program reads version " + std::to_string(kAllocationStatusVersion));
}

}  // namespace psched::proto
