#include "tests/support/temp_dir.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace psched::testing {

TempDir::TempDir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
  // Without a scratch directory no test can run: abort loudly rather than write elsewhere.
  if (mkdtemp(tmpl.data()) == nullptr) std::abort();
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

GoFile::GoFile() {
  char tmpl[] = "/tmp/psched-go-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) std::abort();
  close(fd);
  unlink(tmpl);  // the name is ours; the file appears only at Go()
  path_ = tmpl;
}

GoFile::~GoFile() {
  unlink(path_.c_str());
}

void GoFile::Go() {
  std::ofstream(path_) << "go\n";
}

}  // namespace psched::testing
