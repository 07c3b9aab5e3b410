#include "djsb/proc_sampler.hpp"

#include <dirent.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/read_file.hpp"

namespace psched::djsb {
namespace {

// A /proc file of a process that may have ended meanwhile: empty then.
std::string ReadFile(const std::string& path) {
  return ReadWholeFile(path, path).value_or("");
}

std::vector<std::string> SplitNul(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\0', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string TagOf(const std::vector<std::string>& argv) {
  if (argv.empty()) return "";
  const std::string& exe = argv[0];
  const std::string kName = "psched-stream";
  if (exe.size() < kName.size() || exe.compare(exe.size() - kName.size(), kName.size(), kName))
    return "";  // launchers (mpirun, psched-exec, sh -c) carry the tag too: not ours
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "--tag" && i + 1 < argv.size()) return argv[i + 1];
    if (argv[i].rfind("--tag=", 0) == 0) return argv[i].substr(6);
  }
  return "";
}

int NodeOf(const std::string& pid_dir) {
  for (const std::string& entry : SplitNul(ReadFile(pid_dir + "/environ"))) {
    for (const std::string& var : kNodeEnvVars) {
      if (entry.rfind(var + "=", 0) == 0) {
        try {
          return std::stoi(entry.substr(var.size() + 1));
        } catch (const std::exception&) {
        }
      }
    }
  }
  return 0;
}

// Adds the cpus of `list` to `acc` (both Linux cpu lists), keeping it canonical.
std::string UnionCpus(const std::string& acc, const std::string& list) {
  std::set<int> all = ParseCpuList(acc);
  for (int c : ParseCpuList(list)) all.insert(c);
  std::string out;
  for (auto it = all.begin(); it != all.end();) {
    int lo = *it, hi = lo;
    for (++it; it != all.end() && *it == hi + 1; ++it) hi = *it;
    if (!out.empty()) out += ",";
    out += lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
  }
  return out;
}

void CollectNodes(const nlohmann::json& j, std::set<int>* nodes) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if ((it.key() == "node" || it.key() == "node_id") && it->is_number_integer()) {
        nodes->insert(it->get<int>());
      } else if (it.key() == "nodes" && it->is_array()) {
        for (const auto& n : *it)
          if (n.is_number_integer()) nodes->insert(n.get<int>());
      }
      CollectNodes(*it, nodes);
    }
  } else if (j.is_array()) {
    for (const auto& e : j) CollectNodes(e, nodes);
  }
}

void FindSessions(const nlohmann::json& j, std::vector<const nlohmann::json*>* out) {
  if (j.is_object()) {
    if (j.contains("state") && j["state"].is_string()) out->push_back(&j);
    for (const auto& v : j) FindSessions(v, out);
  } else if (j.is_array()) {
    for (const auto& e : j) FindSessions(e, out);
  }
}

}  // namespace

std::vector<StateSample> SampleProcesses(const std::vector<std::string>& tags,
                                         std::vector<std::set<int>>* nodes) {
  std::vector<StateSample> out(tags.size());
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return out;
  while (dirent* d = readdir(proc)) {
    if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
    std::string dir = std::string("/proc/") + d->d_name;
    std::string tag = TagOf(SplitNul(ReadFile(dir + "/cmdline")));
    if (tag.empty()) continue;
    size_t i = 0;
    while (i < tags.size() && tags[i] != tag) ++i;
    if (i == tags.size()) continue;
    std::string stat = ReadFile(dir + "/stat");
    size_t paren = stat.rfind(')');
    if (paren == std::string::npos || paren + 2 >= stat.size()) continue;  // exited meanwhile
    char state = stat[paren + 2];
    if (state == 'Z' || state == 'X') continue;
    std::string cpus;
    std::istringstream status(ReadFile(dir + "/status"));
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("Cpus_allowed_list:", 0) == 0)
        cpus = line.substr(line.find_first_not_of(" \t", 18));
    }
    out[i].procs++;
    if (state == 'T' || state == 't') out[i].stopped++;
    out[i].cpus = UnionCpus(out[i].cpus, cpus);
    if (nodes != nullptr) (*nodes)[i].insert(NodeOf(dir));
  }
  closedir(proc);
  return out;
}

bool SamplePschedCtl(const std::string& ctl, const std::vector<std::string>& tags,
                     std::vector<StateSample>* samples, std::vector<std::set<int>>* nodes) {
  std::string cmd = ctl + " status --json 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return false;
  std::string text;
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) text.append(buf, n);
  if (pclose(pipe) != 0) return false;
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return false;
  std::vector<const nlohmann::json*> sessions;
  FindSessions(j, &sessions);
  for (const nlohmann::json* s : sessions) {
    std::string dump = s->dump();
    for (size_t i = 0; i < tags.size(); ++i) {
      // Tags are "djsb-<run>-<session>": unique, and never a prefix of another tag
      // because the search includes the closing quote or space after it.
      if (dump.find(tags[i] + "\"") == std::string::npos &&
          dump.find(tags[i] + " ") == std::string::npos)
        continue;
      (*samples)[i].ctl_state = (*s)["state"].get<std::string>();
      if (nodes != nullptr) CollectNodes(*s, &(*nodes)[i]);
    }
  }
  return true;
}

}  // namespace psched::djsb
