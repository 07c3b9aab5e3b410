#include "djsb/config.hpp"

#include <toml++/toml.h>
#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include "common/toml_text.hpp"

namespace psched::djsb {
namespace {

std::unexpected<Error> Invalid(const std::string& what) {
  return Fail(ErrorCode::kInvalidArgument, what);
}

std::string LineOf(const toml::node& node) {
  return " (line " + std::to_string(node.source().begin.line) + ")";
}

// A table's keys must be among `known`: a misspelt key would otherwise be ignored.
Result<void> OnlyKeys(const toml::table& table, const std::string& prefix,
                      std::initializer_list<std::string_view> known) {
  for (const auto& [key, node] : table) {
    if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return Invalid("unknown key '" + prefix + std::string(key.str()) + "'" + LineOf(node) +
                     " (valid: " + list + ")");
    }
  }
  return {};
}

// The table `name` of `root`: nullptr when absent, an error when it is not a table.
Result<const toml::table*> Section(const toml::table& root, const char* name) {
  const toml::node* node = root.get(name);
  if (node == nullptr) return nullptr;
  if (const toml::table* t = node->as_table()) return t;
  return Invalid(std::string(name) + ": expected a table ([" + name + "])" + LineOf(*node));
}

// Reads an optional value of type T at `key` in `table`; a present value of the wrong
// type is an error naming the key.
template <typename T>
Result<void> Read(const toml::table& table, const std::string& prefix, const char* key, T* out) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return {};
  if constexpr (std::is_same_v<T, bool>) {
    if (auto v = node->value<bool>()) {
      *out = *v;
      return {};
    }
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (auto v = node->value<std::string>()) {
      *out = *v;
      return {};
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    if (auto v = node->value<double>()) {  // accepts integers too
      *out = *v;
      return {};
    }
  } else {
    if (node->is_integer()) {
      const int64_t v = *node->value<int64_t>();
      if (!std::in_range<T>(v)) {  // compares signed and unsigned by value
        return Invalid(prefix + key + ": " + std::to_string(v) + " is out of range" +
                       LineOf(*node));
      }
      *out = static_cast<T>(v);
      return {};
    }
  }
  return Invalid(prefix + key + ": wrong type" + LineOf(*node));
}

Result<void> ReadApp(const toml::table& root, const char* name, AppConfig* app) {
  auto section = Section(root, name);
  if (!section) return Fail(section.error());
  const toml::table* t = *section;
  if (t == nullptr) return {};
  std::string prefix = std::string(name) + ".";
  if (auto ok = OnlyKeys(*t, prefix, {"ranks", "threads", "array_size", "iterations"}); !ok)
    return ok;
  for (auto r : {Read(*t, prefix, "ranks", &app->ranks), Read(*t, prefix, "threads", &app->threads),
                 Read(*t, prefix, "array_size", &app->array_size),
                 Read(*t, prefix, "iterations", &app->iterations)})
    if (!r) return r;
  return {};
}

Result<void> ReadStringList(const toml::node* node, const std::string& key,
                            std::vector<std::string>* out) {
  if (node == nullptr) return {};
  const toml::array* arr = node->as_array();
  if (arr == nullptr) return Invalid(key + ": expected an array of strings");
  out->clear();
  for (const toml::node& e : *arr) {
    auto s = e.value<std::string>();
    if (!s) return Invalid(key + ": expected an array of strings");
    out->push_back(*s);
  }
  return {};
}

}  // namespace

const std::vector<std::string>& KnownPolicies() {
  static const std::vector<std::string> kPolicies = {"wait", "surpass", "overbook", "sidestep"};
  return kPolicies;
}

std::vector<Scenario> PlanScenarios(const DjsbConfig& config, bool in_slurm) {
  std::vector<Scenario> out;
  out.reserve(config.policies.size());
  for (const std::string& p : config.policies) out.push_back({p, p, false, ""});
  // Spreading a one-rank analysis over the nodes places it as without: not a scenario.
  if (config.spread && config.analysis.ranks > 1) {
    for (const std::string& p : config.policies)
      if (p == "overbook" || p == "sidestep") out.push_back({p + "+spread", p, true, ""});
  }
  if (config.baseline) {
    std::string kind = in_slurm ? "srun" : "mpirun";
    out.push_back({"baseline-" + kind, "", false, kind});
  }
  return out;
}

Result<DjsbConfig> ParseConfigToml(std::string_view toml_text, std::string_view source_name) {
  if (std::string problem = NonAsciiOutsideCommentLines(toml_text, source_name); !problem.empty())
    return Invalid(problem);
  toml::table root;
  try {
    root = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& e) {
    return Invalid(std::string(source_name) + ": " + Visible(e.description()) + " (line " +
                   std::to_string(e.source().begin.line) + ")");
  }
  DjsbConfig c;
  auto wrap = [&](Result<void> r) -> Result<void> {
    if (!r) return Invalid(std::string(source_name) + ": " + r.error().message());
    return {};
  };
  static const std::vector<std::string> kSections = {"simulation",
                                                     "analysis",
                                                     "schedule",
                                                     "launcher",
                                                     "metrics",
                                                     "analyses",
                                                     "repeats",
                                                     "policies",
                                                     "spread",
                                                     "baseline",
                                                     "stream_binary",
                                                     "output_dir",
                                                     "session_timeout_s",
                                                     "sample_interval_s",
                                                     "omp_wait_policy",
                                                     "mpi_yield_when_idle",
                                                     "max_repeats",
                                                     "ci_relative_half_width",
                                                     "time_budget_s",
                                                     "sim_target_s",
                                                     "analysis_work_share",
                                                     "allow_folded",
                                                     "interaction"};
  for (const auto& [key, _] : root) {
    if (std::find(kSections.begin(), kSections.end(), std::string(key.str())) == kSections.end())
      return Invalid(std::string(source_name) + ": unknown key '" + std::string(key.str()) + "'");
  }
  for (auto r : {ReadApp(root, "simulation", &c.simulation), ReadApp(root, "analysis", &c.analysis),
                 Read(root, "", "analyses", &c.analyses), Read(root, "", "repeats", &c.repeats),
                 Read(root, "", "spread", &c.spread), Read(root, "", "baseline", &c.baseline),
                 Read(root, "", "stream_binary", &c.stream_binary),
                 Read(root, "", "output_dir", &c.output_dir),
                 Read(root, "", "session_timeout_s", &c.session_timeout_s),
                 Read(root, "", "sample_interval_s", &c.sample_interval_s),
                 Read(root, "", "omp_wait_policy", &c.omp_wait_policy),
                 Read(root, "", "mpi_yield_when_idle", &c.mpi_yield_when_idle),
                 Read(root, "", "max_repeats", &c.max_repeats),
                 Read(root, "", "ci_relative_half_width", &c.ci_relative_half_width),
                 Read(root, "", "time_budget_s", &c.time_budget_s),
                 Read(root, "", "sim_target_s", &c.sim_target_s),
                 Read(root, "", "analysis_work_share", &c.analysis_work_share),
                 Read(root, "", "allow_folded", &c.allow_folded),
                 ReadStringList(root.get("policies"), "policies", &c.policies)}) {
    if (auto w = wrap(r); !w) return Fail(w.error());
  }
  auto schedule = Section(root, "schedule");
  auto launcher = Section(root, "launcher");
  auto metrics = Section(root, "metrics");
  auto interaction = Section(root, "interaction");
  for (const auto* section : {&schedule, &launcher, &metrics, &interaction})
    if (!*section) return Invalid(std::string(source_name) + ": " + section->error().message());
  if (const toml::table* s = *schedule) {
    if (auto w = wrap(OnlyKeys(*s, "schedule.", {"seed", "earliest", "latest", "at"})); !w)
      return Fail(w.error());
    for (auto r : {Read(*s, "schedule.", "seed", &c.schedule.seed),
                   Read(*s, "schedule.", "earliest", &c.schedule.earliest),
                   Read(*s, "schedule.", "latest", &c.schedule.latest)})
      if (auto w = wrap(r); !w) return Fail(w.error());
    if (const toml::node* at = s->get("at")) {
      const toml::array* arr = at->as_array();
      if (arr == nullptr)
        return Invalid(std::string(source_name) + ": schedule.at: expected an array");
      for (const toml::node& e : *arr) {
        auto v = e.value<double>();
        if (!v) return Invalid(std::string(source_name) + ": schedule.at: expected numbers");
        c.schedule.at.push_back(*v);
      }
    }
  }
  if (const toml::table* l = *launcher) {
    if (auto w = wrap(OnlyKeys(*l, "launcher.", {"psched", "mpirun", "srun"})); !w)
      return Fail(w.error());
    for (auto r : {Read(*l, "launcher.", "psched", &c.launcher.psched),
                   Read(*l, "launcher.", "mpirun", &c.launcher.mpirun),
                   Read(*l, "launcher.", "srun", &c.launcher.srun)})
      if (auto w = wrap(r); !w) return Fail(w.error());
  }
  if (const toml::table* m = *metrics) {
    if (auto w = wrap(OnlyKeys(
            *m, "metrics.",
            {"wait_constant_s", "wait_constant_sim_fraction", "analysis_share", "slot_overlap"}));
        !w)
      return Fail(w.error());
    for (auto r : {Read(*m, "metrics.", "wait_constant_s", &c.constants.wait_constant_s),
                   Read(*m, "metrics.", "wait_constant_sim_fraction",
                        &c.constants.wait_constant_sim_fraction),
                   Read(*m, "metrics.", "analysis_share", &c.constants.analysis_share),
                   Read(*m, "metrics.", "slot_overlap", &c.constants.slot_overlap)})
      if (auto w = wrap(r); !w) return Fail(w.error());
  }
  if (const toml::table* i = *interaction) {
    if (auto w = wrap(OnlyKeys(*i, "interaction.", {"pulls", "slice"})); !w) return Fail(w.error());
    for (auto r : {Read(*i, "interaction.", "pulls", &c.interaction.pulls),
                   Read(*i, "interaction.", "slice", &c.interaction.slice)})
      if (auto w = wrap(r); !w) return Fail(w.error());
  }
  return c;
}

Result<void> ValidateConfig(const DjsbConfig& c) {
  for (auto [name, app] : {std::pair{"simulation", &c.simulation}, {"analysis", &c.analysis}}) {
    std::string n = name;
    if (app->ranks <= 0)
      return Invalid(n + ".ranks must be > 0 (got " + std::to_string(app->ranks) + ")");
    if (app->threads <= 0)
      return Invalid(n + ".threads must be > 0 (got " + std::to_string(app->threads) + ")");
    if (app->array_size < app->ranks)
      return Invalid(n + ".array_size must be at least the number of ranks");
    if (app->iterations < 2)
      return Invalid(n + ".iterations must be >= 2 (the first is not timed)");
  }
  if (c.interaction.pulls < 0 || c.interaction.pulls > 1'000'000)
    return Invalid("interaction.pulls must be in [0, 1000000] (0: no interaction)");
  if (c.interaction.slice < 1 || c.interaction.slice > (int64_t{1} << 24))
    return Invalid("interaction.slice must be in [1, 16777216] doubles");
  if (c.analyses <= 0)
    return Invalid("analyses must be > 0 (got " + std::to_string(c.analyses) + ")");
  if (c.repeats <= 0) return Invalid("repeats must be > 0 (got " + std::to_string(c.repeats) + ")");
  if (c.max_repeats < c.repeats) {
    return Invalid("max_repeats (" + std::to_string(c.max_repeats) + ") must be >= repeats (" +
                   std::to_string(c.repeats) + ")");
  }
  if (!(c.ci_relative_half_width > 0) || !std::isfinite(c.ci_relative_half_width))
    return Invalid("ci_relative_half_width must be a number > 0");
  if (!(c.time_budget_s >= 0) || !std::isfinite(c.time_budget_s))
    return Invalid("time_budget_s must be a number >= 0 (0: no budget)");
  if (!(c.sim_target_s >= 0) || !std::isfinite(c.sim_target_s))
    return Invalid("sim_target_s must be a number >= 0 (0: iterations as configured)");
  if (!(c.analysis_work_share > 0) || !std::isfinite(c.analysis_work_share))
    return Invalid("analysis_work_share must be a number > 0");
  const ScheduleConfig& s = c.schedule;
  // Comparisons are false for NaN: a NaN time would pass the ranges below and never come.
  for (double t : s.at)
    if (!std::isfinite(t)) return Invalid("schedule.at: every time must be a finite number");
  if (!std::isfinite(s.earliest) || !std::isfinite(s.latest))
    return Invalid("schedule: earliest and latest must be finite numbers");
  if (!s.at.empty()) {
    if (static_cast<int>(s.at.size()) != c.analyses) {
      return Invalid("schedule.at has " + std::to_string(s.at.size()) + " times for " +
                     std::to_string(c.analyses) + " analyses");
    }
    for (double f : s.at) {
      if (f < 0)
        return Invalid("schedule.at: " + std::to_string(f) + " is before the simulation starts");
      if (f >= 1) {
        return Invalid(
            "schedule.at: analysis at " + std::to_string(f) +
            " of the simulation's time is scheduled after the simulation ends (must be < 1)");
      }
    }
  } else {
    if (s.earliest < 0 || s.earliest > s.latest) {
      return Invalid("schedule: need 0 <= earliest <= latest (got " + std::to_string(s.earliest) +
                     ", " + std::to_string(s.latest) + ")");
    }
    if (s.latest >= 1) {
      return Invalid("schedule.latest " + std::to_string(s.latest) +
                     " schedules analyses after the simulation ends (must be < 1)");
    }
  }
  if (c.policies.empty() && !c.baseline)
    return Invalid("nothing to run: no policies and no baseline");
  for (size_t i = 0; i < c.policies.size(); ++i) {
    const std::string& p = c.policies[i];
    if (std::find(c.policies.begin(), c.policies.begin() + static_cast<long>(i), p) !=
        c.policies.begin() + static_cast<long>(i))
      return Invalid("policies: '" + p + "' is listed twice (its runs would overwrite each other)");
    const auto& known = KnownPolicies();
    if (std::find(known.begin(), known.end(), p) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      return Invalid("unknown policy '" + p + "' (valid: " + list + ")");
    }
  }
  if (!(c.session_timeout_s > 0) || !std::isfinite(c.session_timeout_s))
    return Invalid("session_timeout_s must be a number > 0");
  if (!(c.sample_interval_s > 0) || !(c.sample_interval_s <= c.session_timeout_s)) {
    return Invalid("sample_interval_s must be > 0 and at most session_timeout_s (" +
                   std::to_string(c.session_timeout_s) + ")");
  }
  if (auto ok = CheckConstants(c.constants); !ok)
    return Invalid("metrics: " + ok.error().message());
  // Each launcher template must expand and run the benchmark's command.
  for (auto [name, templ] : {std::pair{"launcher.psched", &c.launcher.psched},
                             {"launcher.mpirun", &c.launcher.mpirun},
                             {"launcher.srun", &c.launcher.srun}}) {
    auto expanded = ExpandTemplate(*templ, c.simulation, "wait", false, "CMD", "BIN");
    if (!expanded) return Invalid(std::string(name) + ": " + expanded.error().message());
    if (templ->find("{command}") == std::string::npos)
      return Invalid(std::string(name) + ": the template has no {command}: " + *templ);
  }
  return {};
}

std::vector<double> LaunchFractions(const DjsbConfig& c) {
  std::vector<double> out = c.schedule.at;
  if (out.empty()) {
    // mt19937_64 is specified bit-for-bit by the standard; the distribution is done by
    // hand because std::uniform_real_distribution is not portable across libraries.
    std::mt19937_64 rng(c.schedule.seed);
    for (int k = 0; k < c.analyses; ++k) {
      double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
      out.push_back(c.schedule.earliest + u * (c.schedule.latest - c.schedule.earliest));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

int SubmitIteration(double fraction, int iterations) {
  const int k = static_cast<int>(std::lround(fraction * iterations));
  return std::clamp(k, 1, std::max(1, iterations - 1));
}

Result<std::string> ExpandTemplate(const std::string& templ, const AppConfig& app,
                                   const std::string& policy, bool spread,
                                   const std::string& command, const std::string& bin_dir) {
  std::string out;
  size_t i = 0;
  while (i < templ.size()) {
    if (templ[i] != '{') {
      out += templ[i++];
      continue;
    }
    size_t close = templ.find('}', i);
    if (close == std::string::npos) return Invalid("launcher template: unmatched '{' in: " + templ);
    std::string key = templ.substr(i + 1, close - i - 1);
    if (key == "ranks") {
      out += std::to_string(app.ranks);
    } else if (key == "threads") {
      out += std::to_string(app.threads);
    } else if (key == "policy") {
      out += policy;
    } else if (key == "spread") {
      out += spread ? " --spread" : "";
    } else if (key == "command") {
      out += command;
    } else if (key == "bin") {
      out += bin_dir;
    } else {
      return Invalid("launcher template: unknown placeholder {" + key +
                     "} (valid: {ranks} {threads} {policy} {spread} {command} {bin})");
    }
    i = close + 1;
  }
  return out;
}

}  // namespace psched::djsb
