// The PMI-1 wire as MPICH's ranks write it (pmi/wire.hpp): pmi::FuzzWire splits the
// stream into lines, parses each and checks that what parses prints back to itself.
#include <cstddef>
#include <cstdint>

#include "pmi/wire.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return psched::pmi::FuzzWire(data, size);
}
