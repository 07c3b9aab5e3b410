// A rank for the co-scheduling tests: starts T-1 more threads (T = argv[1]) that all
// block, so re-pinning can be checked on every thread of a process. It runs until
// killed; it never spins (160 of them share a 2-core machine). With "tstp" as
// argv[2] it catches SIGTSTP and says so (the surpass grace test).
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::string tstp_line;  // prepared before the handler is installed: write() only inside

void OnTstp(int) {
  (void)!write(1, tstp_line.data(), tstp_line.size());
}

void* Block(void*) {
  while (true) pause();
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  if (argc > 2 && std::strcmp(argv[2], "tstp") == 0) {
    const char* rank = std::getenv("PSCHED_RANK");
    tstp_line = std::string("SIGTSTP rank ") + (rank ? rank : "?") + "\n";
    signal(SIGTSTP, &OnTstp);
  }
  for (int i = 1; i < threads; ++i) {
    pthread_t t;
    if (pthread_create(&t, nullptr, &Block, nullptr) != 0) return 2;
  }
  Block(nullptr);
}
