#include "scheduler/sim/swf_file.hpp"

#include <zlib.h>

#include <memory>

namespace psched::sim {

Result<std::string> ReadMaybeGzip(const std::string& path) {
  // gzopen reads uncompressed files transparently, so one path serves .swf and .swf.gz.
  errno = 0;
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) return Fail(Error::FromErrno("gzopen", "cannot open trace '" + path + "'"));
  gzbuffer(file.get(), 1 << 17);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    int n = gzread(file.get(), buffer, sizeof buffer);
    if (n < 0) {
      int zerr = 0;
      const char* msg = gzerror(file.get(), &zerr);
      return Fail(ErrorCode::kInvalidArgument,
                  "reading trace '" + path + "': gzread: " + (msg ? msg : "error"));
    }
    if (n == 0) break;
    text.append(buffer, n);
  }
  // A stream cut short reads as a clean end: zlib tells it only through the error state.
  int zerr = Z_OK;
  gzerror(file.get(), &zerr);
  if (zerr == Z_BUF_ERROR) {
    return Fail(ErrorCode::kInvalidArgument,
                "reading trace '" + path + "': the gzip stream is truncated (" +
                    std::to_string(text.size()) + " bytes decompressed before its end)");
  }
  return text;
}

Result<Workload> ReadSwfFile(const std::string& path, const SwfOptions& options) {
  Result<std::string> text = ReadMaybeGzip(path);
  if (!text) return Fail(text.error());
  return ParseSwf(*text, path, options);
}

}  // namespace psched::sim
