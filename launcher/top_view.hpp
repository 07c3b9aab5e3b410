// What `psched-ctl top` shows, as lines of text from one status reply: the nodes with
// their slot maps (use counts), load and memory; the sessions with state, policy,
// ranks, elapsed time and who displaced whom; the queue with why each one waits; the
// keys. Pure: the ncurses shell (ctl_top.cpp) draws these lines, and without a terminal
// they are printed as they are.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proto/allocation_status.hpp"

namespace psched::launcher {

struct TopLine {
  std::string text;
  bool selected = false;  // the selected session's line (drawn highlighted)
};

struct TopView {
  int64_t selected = 0;  // session id; 0: none
  std::string message;   // a question (suspend session 3?) or what the last action did
};

// The screen, each line cut at `width` columns.
std::vector<TopLine> TopLines(const proto::AllocationStatus& status, const TopView& view,
                              size_t width);

// The ids of the sessions that can be selected (running, overbooked, suspended,
// sidestepped, and queued ones), in the order shown.
std::vector<int64_t> SelectableSessions(const proto::AllocationStatus& status);

// `selected` moved by `step` (+1 down, -1 up) among SelectableSessions; the first one
// when `selected` is gone or none was selected; 0 when there are none.
int64_t MoveSelection(const proto::AllocationStatus& status, int64_t selected, int step);

// "sleep 20" of session `id`, for the confirmation question ("" when unknown).
std::string SessionCommand(const proto::AllocationStatus& status, int64_t id);

}  // namespace psched::launcher
