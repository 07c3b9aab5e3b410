// psched-ctl top's screen from one status reply (the ncurses shell only draws it).
#include "launcher/top_view.hpp"

#include <gtest/gtest.h>

namespace psched::launcher {
namespace {

proto::AllocationStatus Status() {
  proto::Json s = {{"expected_nodes", 1}, {"free", 0}, {"total", 2}};
  s["nodes"] = {
      {{"id", 0},
       {"hostname", "vm"},
       {"state", "up"},
       {"free", 0},
       {"pus", 2},
       {"uses", {2, 1}},
       {"metrics", {{"cpu_load_1m", 1.5}, {"used_memory_mb", 1024}, {"total_memory_mb", 4096}}}}};
  s["sessions"] = {{{"id", 1},
                    {"owner", "ann"},
                    {"state", "suspended"},
                    {"state_detail", "suspended by 2"},
                    {"policy", "wait"},
                    {"ranks", 2},
                    {"elapsed_s", 12.0},
                    {"nodes", {0}},
                    {"command", "a.out"}},
                   {{"id", 2},
                    {"owner", "ann"},
                    {"state", "running"},
                    {"state_detail", "running"},
                    {"policy", "surpass"},
                    {"ranks", 2},
                    {"elapsed_s", 3.0},
                    {"nodes", {0}},
                    {"command", "b"}},
                   {{"id", 3},
                    {"owner", "bob"},
                    {"state", "queued"},
                    {"state_detail", "queued at position 1"},
                    {"wait_reason", "waits for 2 slots: 0 free, 0 sessions ahead, policy wait"},
                    {"policy", "wait"},
                    {"ranks", 2},
                    {"elapsed_s", 1.0},
                    {"nodes", proto::Json::array()},
                    {"command", "c"}}};
  return s.get<proto::AllocationStatus>();  // as psched-ctl decodes it
}

std::string Screen(const std::vector<TopLine>& lines) {
  std::string out;
  for (const TopLine& l : lines) out += (l.selected ? "*" : "") + l.text + "\n";
  return out;
}

TEST(TopView, ShowsNodesSessionsWhoDisplacedWhomAndTheQueueWithReasons) {
  const std::string screen = Screen(TopLines(Status(), TopView{2, ""}, 200));
  for (const char* text :
       {"overbooked: 1 of 2 slots shared", " 1.50  1.0/4.0G", "  21\n", "sessions: 2",
        "suspended by 2", "surpass", "12.0s", "queue: 1 waiting",
        "queued at position 1: waits for 2 slots: 0 free, 0 sessions ahead, policy wait",
        "keys: q quit"})
    EXPECT_NE(screen.find(text), std::string::npos) << text << " in\n" << screen;
  EXPECT_NE(screen.find("*> 2     ann"), std::string::npos) << screen;  // the selected one
}

TEST(TopView, LinesAreCutAtTheWidthAndTheMessageReplacesTheKeys) {
  const auto lines = TopLines(Status(), TopView{1, "suspend session 1 (a.out)? y/n"}, 30);
  for (const TopLine& l : lines) EXPECT_LE(l.text.size(), 30u) << l.text;
  EXPECT_EQ(lines.back().text, "suspend session 1 (a.out)? y/n");
}

TEST(TopView, SelectionMovesOverRunningThenQueuedSessions) {
  const proto::AllocationStatus s = Status();
  EXPECT_EQ(SelectableSessions(s), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(MoveSelection(s, 0, 0), 1);
  EXPECT_EQ(MoveSelection(s, 1, +1), 2);
  EXPECT_EQ(MoveSelection(s, 3, +1), 3);
  EXPECT_EQ(MoveSelection(s, 1, -1), 1);
  EXPECT_EQ(MoveSelection(s, 99, +1), 1);  // ended: back to the first
  EXPECT_EQ(MoveSelection(proto::AllocationStatus{}, 5, 1), 0);
  EXPECT_EQ(SessionCommand(s, 3), "c");
}

}  // namespace
}  // namespace psched::launcher
