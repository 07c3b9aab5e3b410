#include "pmix/fabric.hpp"

#include <system_error>

namespace psched::pmix {

bool NodeHasFabric(const std::filesystem::path& sysfs) {
  for (const char* cls : {"class/infiniband", "class/cxi"}) {
    std::error_code ec;
    std::filesystem::directory_iterator it(sysfs / cls, ec);
    // Unreadable counts as present: never take the fast path on a node we cannot see.
    if (ec && ec != std::errc::no_such_file_or_directory) return true;
    if (!ec && it != std::filesystem::directory_iterator()) return true;
  }
  return false;
}

}  // namespace psched::pmix
