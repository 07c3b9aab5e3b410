#include "launcher/ctl_top.hpp"

#include <curses.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "launcher/allocation_locator.hpp"
#include "launcher/ctl_client.hpp"
#include "launcher/top_view.hpp"

namespace psched::launcher {

namespace {

// One request on its own connection, as psched-ctl's other commands make it: the
// leader answers and the connection ends, so a view left open holds nothing.
Result<proto::CtlReply> Ask(proto::MsgType type, int64_t session) {
  AllocationSocket where;
  auto fd = ConnectToAllocation(/*start_embedded=*/false, &where);
  if (!fd) return Fail(ErrorCode::kNotFound, NoDaemonMessage(where, fd.error()));
  auto reply = CtlRequest(*fd, type, session);
  close(*fd);
  return reply;
}

Result<proto::AllocationStatus> FetchStatus() {
  auto reply = Ask(proto::MsgType::kCtlStatus, 0);
  if (!reply) return Fail(reply.error());
  return StatusReport(std::move(*reply));
}

int PlainText() {
  auto status = FetchStatus();
  if (!status) {
    std::fprintf(stderr, "psched-ctl: %s\n", status.error().message().c_str());
    return 1;
  }
  for (const TopLine& line : TopLines(*status, TopView{}, std::string::npos))
    std::cout << line.text << "\n";
  return 0;
}

struct Pending {
  proto::MsgType type = proto::MsgType::kCtlStatus;  // kCtlStatus: nothing asked
  int64_t session = 0;
};

// The key pressed while nothing waits for a confirmation: an action to confirm, or
// a moved selection. Returns false for q.
bool OnKey(int key, const proto::AllocationStatus& status, TopView& view, Pending& pending) {
  const char* verb = nullptr;
  proto::MsgType type = proto::MsgType::kCtlStatus;
  switch (key) {
    case 'q':
    case 'Q':
      return false;
    case KEY_UP:
    case 'p':
      view.selected = MoveSelection(status, view.selected, -1);
      return true;
    case KEY_DOWN:
    case 'n':
    case '\t':
      view.selected = MoveSelection(status, view.selected, +1);
      return true;
    case 's':
      verb = "suspend", type = proto::MsgType::kCtlSuspend;
      break;
    case 'r':
      verb = "resume", type = proto::MsgType::kCtlResume;
      break;
    case 'k':
      verb = "kill", type = proto::MsgType::kCtlKill;
      break;
    default:
      return true;
  }
  if (view.selected == 0) {
    view.message = "no session selected (up/down selects one)";
    return true;
  }
  pending = {type, view.selected};
  view.message = std::string(verb) + " session " + std::to_string(view.selected) + " (" +
                 SessionCommand(status, view.selected) + ")? y/n";
  return true;
}

void Draw(const proto::AllocationStatus& status, const TopView& view) {
  erase();
  const std::vector<TopLine> lines = TopLines(status, view, static_cast<size_t>(COLS));
  const int rows = LINES;
  // The last line (keys, questions, results) stays in view on a short terminal.
  for (int i = 0; i < rows - 1 && i + 1 < static_cast<int>(lines.size()); ++i) {
    if (lines[i].selected) attron(A_REVERSE);
    mvaddnstr(i, 0, lines[i].text.c_str(), COLS);
    if (lines[i].selected) attroff(A_REVERSE);
  }
  if (!lines.empty()) mvaddnstr(rows - 1, 0, lines.back().text.c_str(), COLS);
  refresh();
}

}  // namespace

int RunTop(double refresh_s) {
  if (isatty(STDOUT_FILENO) == 0 || isatty(STDIN_FILENO) == 0) return PlainText();
  SCREEN* screen = newterm(nullptr, stdout, stdin);
  if (screen == nullptr) return PlainText();  // a terminal ncurses does not know
  cbreak();
  noecho();
  keypad(stdscr, TRUE);
  curs_set(0);
  timeout(100);  // keys are read between refreshes
  using Clock = std::chrono::steady_clock;
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(refresh_s));
  proto::AllocationStatus status;
  TopView view;
  Pending pending;
  std::string error;
  auto next = Clock::now();
  for (bool running = true; running;) {
    if (Clock::now() >= next) {
      auto fresh = FetchStatus();
      if (fresh) {
        status = std::move(*fresh);
        if (error.size() > 0 && view.message == error) view.message.clear();
        error.clear();
        if (view.selected == 0 || SessionCommand(status, view.selected).empty())
          view.selected = MoveSelection(status, 0, 0);
      } else {
        error = "psched-ctl: " + fresh.error().message();
        view.message = error;
      }
      next = Clock::now() + period;
      Draw(status, view);
    }
    const int key = getch();
    if (key == ERR) continue;
    if (key == KEY_RESIZE) {
      Draw(status, view);
      continue;
    }
    if (pending.type != proto::MsgType::kCtlStatus) {
      if (key == 'y' || key == 'Y') {
        auto reply = Ask(pending.type, pending.session);
        view.message = !reply      ? "psched-ctl: " + reply.error().message()
                       : reply->ok ? reply->message
                                   : "psched-ctl: " + reply->message;
        next = Clock::now();  // show what it did at once
      } else {
        view.message = "nothing done";
      }
      pending = {};
    } else {
      running = OnKey(key, status, view, pending);
    }
    Draw(status, view);
  }
  endwin();
  delscreen(screen);
  return 0;
}

}  // namespace psched::launcher
