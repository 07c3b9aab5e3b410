// TCP keepalive for every link of psched that crosses hosts: the peer links and a launcher's
// link to the leader from another host (both ends).
//
// A process whose peer's host dies (or whose network to it fails) gets no FIN: without
// keepalive the link looks open for ever, and a node would wait for a dead leader with its
// ranks running, a launcher for a session that is gone. The kernel probes a link idle for
// 1 s every second and gives up after 2 unanswered probes (data unacknowledged for 3 s ends
// it too): a dead peer's link closes within 3 s. The kernel answers probes for a busy or
// stopped process, so a leader deciding for a long time, or a launcher stopped with Ctrl-Z,
// is not taken for dead.
#pragma once

namespace psched::daemon {

// How long a link's sent data may stay unacknowledged before the link ends (also what the
// log says when a link ends for it).
inline constexpr unsigned kUnackedLimitMs = 3000;

// Sets TCP_NODELAY and the keepalive above on a connected TCP socket.
void KeepLinkAlive(int fd);

}  // namespace psched::daemon
