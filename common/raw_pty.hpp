// A pseudo-terminal for a child's output that reads back exactly what the child wrote.
// A rank whose stdout is a terminal has its C and Python stdio line-buffered, so its
// lines appear when written (as under mpirun), not when a pipe's block buffer fills.
#pragma once

#include "common/error.hpp"

namespace psched {

struct RawPty {
  int master = -1;  // the reader's end: after the last holder of `slave` closes it, read
                    // returns what is left and then fails with EIO (its end of file)
  int slave = -1;   // the terminal the child writes to
};

// Both ends close-on-exec; the slave is opened O_NOCTTY (it never becomes anyone's
// controlling terminal, so no job control signals come from it) and set raw: no output
// processing ("\n" stays "\n", not "\r\n"), no echo, 8-bit clean.
Result<RawPty> OpenRawPty();

}  // namespace psched
