// psched-ctl status against a daemon whose status report does not decode (a field out of
// its range, or of the wrong type): one line naming the field, exit 1, nothing printed as
// if it were the allocation's status. A socket of the test's own plays the daemon.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>

#include "daemon/net/run_dir.hpp"
#include "proto/allocation_status.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::testing {
namespace {

// Listens where psched-ctl looks for PSCHED_ALLOCATION=dir's daemon and answers one
// request with `reply` (a ctl.reply frame's body).
class FakeLeader {
 public:
  FakeLeader(const TempDir& dir, proto::Json reply) : reply_(std::move(reply)) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string path = daemon::LauncherSocketPath(dir.path());
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << path;
    EXPECT_EQ(listen(fd_, 1), 0);
    thread_ = std::thread([this] { Answer(); });
  }
  ~FakeLeader() {
    shutdown(fd_, SHUT_RDWR);
    thread_.join();
    close(fd_);
  }
  FakeLeader(const FakeLeader&) = delete;
  FakeLeader& operator=(const FakeLeader&) = delete;

 private:
  void Answer() {
    const int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return;
    char request[proto::kHeaderSize];
    (void)!read(c, request, sizeof request);  // ctl.status: a header and an empty map
    const std::string wire = proto::EncodeFrame(proto::MsgType::kCtlReply, reply_);
    EXPECT_EQ(write(c, wire.data(), wire.size()), static_cast<ssize_t>(wire.size()));
    close(c);
  }

  proto::Json reply_;
  int fd_ = -1;
  std::thread thread_;
};

proto::Json ReplyWith(const char* field, proto::Json value) {
  proto::AllocationStatus status;
  status.nodes.push_back({.id = 0, .hostname = "n0", .pus = 2, .free = 2});
  proto::Json reply = proto::Json(proto::CtlReply{.ok = true, .status = status});
  reply["status"]["nodes"][0][field] = std::move(value);
  return reply;
}

TEST(CtlReply, AStatusFieldOutOfRangeOrOfTheWrongTypeIsAnErrorNamingIt) {
  TempDir dir;
  const std::vector<std::string> env = {"PSCHED_ALLOCATION=" + dir.path()};
  for (const char* json : {"", "--json"}) {
    std::vector<std::string> argv = {Bin("psched-ctl"), "status"};
    if (*json) argv.push_back(json);
    {
      FakeLeader leader(dir, ReplyWith("free", -3));
      auto r = RunCmd(argv, env, "", 30);
      EXPECT_EQ(r.code, 1) << r.out << r.err;
      EXPECT_EQ(r.out, "");
      EXPECT_NE(r.err.find("psched-ctl: "), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("malformed ctl.reply message: 'status.nodes[0].free' is out of "
                           "range: -3"),
                std::string::npos)
          << r.err;
    }
    unlink(daemon::LauncherSocketPath(dir.path()).c_str());
    {
      FakeLeader leader(dir, ReplyWith("uses", {1, "x"}));
      auto r = RunCmd(argv, env, "", 30);
      EXPECT_EQ(r.code, 1) << r.out << r.err;
      EXPECT_EQ(r.out, "");
      EXPECT_NE(r.err.find("'status.nodes[0].uses[1]' is not an integer: \"x\""), std::string::npos)
          << r.err;
    }
    unlink(daemon::LauncherSocketPath(dir.path()).c_str());
  }
  // The same report, well formed, is shown.
  FakeLeader leader(dir, ReplyWith("free", 1));
  auto r = RunCmd({Bin("psched-ctl"), "status"}, env, "", 30);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("n0"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace psched::testing
