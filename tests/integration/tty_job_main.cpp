// A terminal session with one background job, for tests of what a command does on a
// terminal it does not own: `tty_job CMD...` leads a new session whose controlling
// terminal is a fresh pty, and starts CMD in a process group of its own with that
// terminal as stdin (stdout and stderr are ours), as an interactive shell runs
// `CMD &`. It prints "job PID", then obeys lines on its stdin:
//   type TEXT   TEXT and a newline typed on the terminal; "typed" once CMD could read it
//   fg          CMD's group made the terminal's foreground and sent SIGCONT, as fg does
// and exits with CMD's status (128+signal when killed) once CMD has ended.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

namespace {

int Fail(const char* what) {
  std::perror(what);
  return 125;
}

// Waits until the terminal holds a line for its reader (canonical mode): what was typed
// has gone through the line discipline.
void AwaitLine(int tty) {
  pollfd p{.fd = tty, .events = POLLIN, .revents = 0};
  while (poll(&p, 1, -1) < 0) {
  }
}

int Obey(int master, int tty, pid_t job) {
  for (std::string line; std::getline(std::cin, line);) {
    if (line.starts_with("type ")) {
      const std::string text = line.substr(5) + "\n";
      if (write(master, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
        return Fail("write to the terminal");
      AwaitLine(tty);
      std::cout << "typed" << std::endl;
    } else if (line == "fg") {
      if (tcsetpgrp(tty, job) != 0) return Fail("tcsetpgrp");
      kill(-job, SIGCONT);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tty_job CMD [ARGS...]\n");
    return 2;
  }
  if (setsid() < 0) return Fail("setsid");
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return Fail("posix_openpt");
  int tty = open(ptsname(master), O_RDWR | O_CLOEXEC);
  if (tty < 0 || ioctl(tty, TIOCSCTTY, 0) != 0) return Fail("the controlling terminal");
  std::cout.setf(std::ios::unitbuf);
  pid_t job = fork();
  if (job < 0) return Fail("fork");
  if (job == 0) {
    setpgid(0, 0);
    dup2(tty, 0);
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  setpgid(job, job);  // also here: the test may look before the child has run
  std::cout << "job " << job << std::endl;
  if (int failed = Obey(master, tty, job); failed != 0) {
    kill(-job, SIGKILL);
    return failed;
  }
  int status = 0;
  while (waitpid(job, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
