// The PMI-2 wire as libpmi2 clients write it (pmi/wire2.hpp): pmi::FuzzWire2 splits the
// stream into length-prefixed messages, parses each and checks that what parses prints
// back to itself.
#include <cstddef>
#include <cstdint>

#include "pmi/wire2.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return psched::pmi::FuzzWire2(data, size);
}
