// A rank for the co-scheduling tests: starts T-1 more threads (T = argv[1]) that all
// block, so re-pinning can be checked on every thread of a process. It runs until
// killed; it never spins (160 of them share a 2-core machine).
#include <pthread.h>
#include <unistd.h>

#include <cstdlib>

namespace {

void* Block(void*) {
  while (true) pause();
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  for (int i = 1; i < threads; ++i) {
    pthread_t t;
    if (pthread_create(&t, nullptr, &Block, nullptr) != 0) return 2;
  }
  Block(nullptr);
}
