#include "launcher/slurm/daemon_plan.hpp"

#include <algorithm>
#include <charconv>

namespace psched::slurm {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Every "KEY=value" word of one scontrol -o line.
std::string_view Field(std::string_view line, std::string_view key) {
  std::size_t pos = 0;
  while (pos < line.size()) {
    std::size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    std::string_view word = line.substr(pos, end - pos);
    if (word.size() > key.size() && word.substr(0, key.size()) == key && word[key.size()] == '=') {
      return word.substr(key.size() + 1);
    }
    pos = end + 1;
  }
  return {};
}

}  // namespace

std::vector<TreeLevel> TreeLevels(int nodes, int fanout) {
  std::vector<TreeLevel> levels;
  if (nodes < 1 || fanout < 1) return levels;
  TreeLevel level{0, 0};
  while (level.first < nodes) {
    levels.push_back(level);
    // The children of first..last are fanout*first+1 .. fanout*last+fanout.
    long next_first = static_cast<long>(level.last) + 1;
    long next_last = std::min<long>(nodes - 1, static_cast<long>(fanout) * level.last + fanout);
    level = TreeLevel{static_cast<int>(next_first), static_cast<int>(next_last)};
  }
  return levels;
}

const std::string& DaemonWrapperScript() {
  // No subprocess: a loop over the words picks this task's parent. The reports go to
  // srun's stdout through fd 3; pschedd's own stdout joins its stderr, so a stray print
  // never mixes with them and closing fd 3 after "ready" leaves stdout valid.
  static const std::string kScript =
      "i=$((PSCHED_SLURM_FIRST + SLURM_NODEID)); parent=; n=0; "
      "for p in $PSCHED_SLURM_PARENTS; do "
      "if [ \"$n\" -eq \"$SLURM_NODEID\" ]; then parent=$p; fi; n=$((n + 1)); done; "
      "if [ -n \"$parent\" ]; then set -- \"$@\" --parent \"$parent\"; fi; "
      "exec \"$0\" \"$@\" --node \"$i\" --hostname \"$SLURMD_NODENAME\" --ready-fd 3 3>&1 1>&2";
  return kScript;
}

std::map<std::string, std::string> ParseNodeAddresses(std::string_view scontrol_output) {
  std::map<std::string, std::string> out;
  std::size_t pos = 0;
  while (pos < scontrol_output.size()) {
    std::size_t end = scontrol_output.find('\n', pos);
    if (end == std::string_view::npos) end = scontrol_output.size();
    std::string_view line = scontrol_output.substr(pos, end - pos);
    pos = end + 1;
    std::string_view name = Field(line, "NodeName");
    std::string_view addr = Field(line, "NodeAddr");
    if (!name.empty() && !addr.empty()) out[std::string(name)] = std::string(addr);
  }
  return out;
}

std::map<int, std::vector<std::string>> ParseLabelledLines(std::string_view output) {
  std::map<int, std::vector<std::string>> out;
  std::size_t pos = 0;
  while (pos < output.size()) {
    std::size_t end = output.find('\n', pos);
    if (end == std::string_view::npos) break;  // a line still being written
    std::string_view line = Trim(output.substr(pos, end - pos));
    pos = end + 1;
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    int task = -1;
    auto [p, ec] = std::from_chars(line.data(), line.data() + colon, task);
    if (ec != std::errc() || p != line.data() + colon || task < 0) continue;
    out[task].push_back(std::string(Trim(line.substr(colon + 1))));
  }
  return out;
}

int ReportedPort(const std::vector<std::string>& lines) {
  for (const auto& line : lines) {
    if (!line.starts_with("port ")) continue;
    int port = -1;
    auto [p, ec] = std::from_chars(line.data() + 5, line.data() + line.size(), port);
    if (ec == std::errc() && p == line.data() + line.size() && port >= 0 && port < 65536) {
      return port;
    }
  }
  return -1;
}

}  // namespace psched::slurm
