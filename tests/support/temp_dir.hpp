// A fresh private directory under /tmp, removed with everything in it at the end.
#pragma once

#include <string>

namespace psched::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "psched-test");  // /tmp/PREFIX-XXXXXX
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A file the test creates to let ranks go on: "until [ -e F ]; do sleep 0.05; done".
class GoFile {
 public:
  GoFile();
  ~GoFile();
  GoFile(const GoFile&) = delete;
  GoFile& operator=(const GoFile&) = delete;
  const std::string& Path() const { return path_; }
  std::string WaitCmd() const { return "until [ -e " + path_ + " ]; do sleep 0.05; done"; }
  void Go();

 private:
  std::string path_;
};

}  // namespace psched::testing
