// The PMI-2 wire protocol: each message is a 6-byte decimal length (padded with
// spaces) followed by that many bytes of "cmd=NAME;key=value;...;", a ';' inside a
// value doubled. A client starts on the PMI-1 wire ("cmd=init pmi_version=2
// pmi_subversion=0\n") and speaks PMI-2 once that is answered with rc=0. Pure: bytes in,
// a command or an error out (Slurm's contribs/pmi2 client, libpmi2, is the reference).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "pmi/wire.hpp"

namespace psched::pmi {

inline constexpr size_t kPmi2LengthField = 6;         // PMII_COMMANDLEN_SIZE
inline constexpr size_t kPmi2MaxMessage = 64 * 1024;  // PMII_MAX_COMMAND_LEN, length field included
inline constexpr size_t kPmi2KeyMax = 64;             // PMI2_MAX_KEYLEN
inline constexpr size_t kPmi2ValueMax = 1024;         // PMI2_MAX_VALLEN

// PMI-2's error codes (pmi2.h) that the server answers in rc=.
inline constexpr int kPmi2InvalidArg = 3;
inline constexpr int kPmi2InvalidKeyLength = 5;
inline constexpr int kPmi2InvalidValLength = 7;
inline constexpr int kPmi2Other = 14;

// One message body (without its length field). The last pair's ';' may be missing.
// Errors: no leading cmd=NAME, a pair without '=', an empty key or one longer than
// kPmi2KeyMax.
Result<Command> ParseMessage2(std::string_view body);

// The framed message: length field, "cmd=NAME;", then "key=value;" with ';' doubled.
std::string FormatMessage2(std::string_view name,
                           const std::vector<std::pair<std::string, std::string>>& args);

// `message` (as FormatMessage2 makes it) with "key=value;" added at its end and its
// length field grown to match: a threaded client's thrid echoed into its answer.
std::string AppendPair2(std::string_view message, std::string_view key, std::string_view value);

// Splits a byte stream from one client into message bodies. A length field that is not
// a number, or is 0 or beyond kPmi2MaxMessage, leaves no way to find the next message:
// Next reports it once and the splitter is broken() from then on (the server answers
// and stops reading that client).
class FrameSplitter {
 public:
  void Append(std::string_view bytes);
  std::optional<Result<std::string>> Next();
  bool broken() const { return broken_; }

 private:
  std::string buffer_;
  bool broken_ = false;
};

// libFuzzer-style entry: feeds the bytes through FrameSplitter and ParseMessage2 and
// checks that what parses prints back (framed) to the same command.
int FuzzWire2(const uint8_t* data, size_t size);

}  // namespace psched::pmi
