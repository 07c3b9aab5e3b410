// The PMI-1 ("simple") wire protocol: newline-terminated lines of space-separated
// key=value tuples, the first naming the command ("cmd=put kvsname=k key=a value=1").
// Pure: text in, a command or an error out (Flux RFC 13 describes the protocol; MPICH's
// simple PMI client and hydra are the reference).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"

namespace psched::pmi {

// MPICH's client reads a reply into a buffer of this size (PMIU_MAXLINE), newline
// included: no line either way may be longer.
inline constexpr size_t kMaxLine = 1024;
// What get_maxes announces (hydra's values). A value must still fit on one reply line.
inline constexpr int kKvsNameMax = 256;
inline constexpr int kKeyMax = 64;
inline constexpr int kValueMax = 1024;

struct Command {
  std::string name;  // the value of the leading cmd= (or mcmd=)
  std::vector<std::pair<std::string, std::string>> args;  // the other tuples, in order

  // The value of `key`, or nullopt when the command does not carry it.
  std::optional<std::string_view> Get(std::string_view key) const;
};

// A value that is a whole decimal int (nullopt when absent or not one).
std::optional<int> IntValue(std::optional<std::string_view> text);

// One line without its newline. Tuples may be separated by several spaces or tabs; a
// word without '=' continues the previous value (an abort message with spaces). Errors:
// an empty line, a line that does not start with cmd=NAME, an empty key, a line longer
// than kMaxLine.
Result<Command> ParseLine(std::string_view line);

// "cmd=NAME k1=v1 k2=v2\n". Keys and values are written as given.
std::string FormatLine(std::string_view name,
                       const std::vector<std::pair<std::string, std::string>>& args);

// A human message made fit for one value of the wire: spaces become '_' (MPICH's client
// splits values at spaces), '=' and control characters become '_'.
std::string WireText(std::string_view text);

// Splits a byte stream from one client into lines. A line longer than kMaxLine is
// reported once as too long (Next returns an error) and its rest is skipped up to the
// next newline, so one bad line does not take the connection down.
class LineSplitter {
 public:
  void Append(std::string_view bytes);
  // The next complete line (without '\n'), an error for an overlong one, or nullopt
  // when no complete line is buffered.
  std::optional<Result<std::string>> Next();
  // What is buffered after the last line taken, handed over when the client switches to
  // PMI-2 (wire2.hpp); the splitter is empty after.
  std::string TakeRest();

 private:
  std::string buffer_;
  bool skipping_ = false;  // inside an overlong line, until its newline
};

// libFuzzer-style entry (a fuzz target's LLVMFuzzerTestOneInput calls it): feeds the
// bytes through LineSplitter, ParseLine and SpawnReader (mcmd=spawn blocks) and checks
// what must always hold.
int FuzzWire(const uint8_t* data, size_t size);

}  // namespace psched::pmi
