#include "daemon/node/proc_tree.hpp"

#include <dirent.h>

#include <fstream>
#include <set>
#include <string>

namespace psched::daemon {

std::vector<pid_t> ThreadsOf(pid_t pid) {
  std::vector<pid_t> tids;
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return tids;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    tids.push_back(static_cast<pid_t>(std::stol(e->d_name)));
  }
  closedir(d);
  return tids;
}

std::vector<pid_t> ChildrenOf(pid_t pid) {
  std::vector<pid_t> kids;
  const std::string task = "/proc/" + std::to_string(pid) + "/task/";
  for (pid_t tid : ThreadsOf(pid)) {
    std::ifstream in(task + std::to_string(tid) + "/children");
    for (pid_t kid = 0; in >> kid;) kids.push_back(kid);
  }
  return kids;
}

std::vector<pid_t> ProcessTree(pid_t pid) {
  std::vector<pid_t> tree{pid};
  std::set<pid_t> seen{pid};  // a pid reused meanwhile must not loop the walk
  for (size_t i = 0; i < tree.size(); ++i) {
    for (pid_t kid : ChildrenOf(tree[i]))
      if (seen.insert(kid).second) tree.push_back(kid);
  }
  return tree;
}

}  // namespace psched::daemon
