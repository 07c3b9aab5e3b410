#include <toml++/toml.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "common/toml_text.hpp"
#include "config/config.hpp"
#include "pmi/wireup.hpp"
#include "policies/policy_registry.hpp"
#include "scheduler/allocator_registry.hpp"
#include "scheduler/priorities/priority_registry.hpp"

namespace psched::config {

namespace {

std::string Quote(std::string_view s) {
  return "'" + Visible(s) + "'";
}

std::string Join(const std::vector<std::string>& names) {
  return policies::JoinNames(names);
}

std::optional<double> AsNumber(const toml::node& v) {
  if (v.is_floating_point()) return v.value<double>();
  if (v.is_integer()) return static_cast<double>(*v.value<int64_t>());
  return std::nullopt;
}

// A field's check-and-store: "" when accepted, else what is wrong with the value.
using Apply = std::function<std::string(const toml::node&, Config&)>;

struct Field {
  std::string_view key;
  Apply apply;
};

struct Section {
  std::string_view path;  // "" for the top level, "allocator.netload", ...
  std::vector<Field> fields;
  std::vector<std::string_view> subsections;
};

// Numbers in [lo, hi] (hi may be infinite); `lo_open` excludes lo itself.
Apply Number(const std::function<double&(Config&)>& member, double lo, double hi, bool lo_open,
             std::string_view what) {
  return [=](const toml::node& v, Config& c) -> std::string {
    std::optional<double> x = AsNumber(v);
    if (!x) return "expected a number (" + std::string(what) + ")";
    // Not a number or an infinity is no count of seconds nor a weight (TOML allows
    // nan and inf): rejected for every key.
    if (!std::isfinite(*x) || *x < lo || (lo_open && *x == lo) || *x > hi) {
      std::ostringstream got;
      got << *x;
      return "must be " + std::string(what) + ", got " + got.str();
    }
    member(c) = *x;
    return "";
  };
}

Apply Fraction(const std::function<double&(Config&)>& member) {
  return Number(member, 0, 1, false, "a weight between 0 and 1");
}
// A factor's weight in a sum of priorities: any finite number >= 0.
Apply Weight(const std::function<double&(Config&)>& member) {
  return Number(member, 0, std::numeric_limits<double>::infinity(), false, "a weight >= 0");
}
// Durations that must not be zero are at least a millisecond: a shorter timer is none
// (1e-7 s rounds to a zero timeval, and a zero round interval runs rounds in a busy loop).
Apply Seconds(const std::function<double&(Config&)>& member, bool zero_ok) {
  return Number(member, zero_ok ? 0 : 0.001, std::numeric_limits<double>::infinity(), false,
                zero_ok ? "seconds >= 0" : "seconds >= 0.001");
}

Apply PositiveInt(const std::function<int&(Config&)>& member) {
  return [=](const toml::node& v, Config& c) -> std::string {
    if (!v.is_integer()) return "expected an integer >= 1";
    int64_t x = *v.value<int64_t>();
    if (x < 1 || x > 1'000'000)
      return "must be an integer between 1 and 1000000, got " + std::to_string(x);
    member(c) = static_cast<int>(x);
    return "";
  };
}

Apply Bool(const std::function<bool&(Config&)>& member) {
  return [=](const toml::node& v, Config& c) -> std::string {
    if (!v.is_boolean()) return "expected true or false";
    member(c) = *v.value<bool>();
    return "";
  };
}

Apply OneOf(const std::function<std::string&(Config&)>& member,
            const std::function<const std::vector<std::string>&()>& valid, std::string_view what) {
  return [=](const toml::node& v, Config& c) -> std::string {
    if (!v.is_string()) return "expected a string, one of: " + Join(valid());
    std::string s = *v.value<std::string>();
    const auto& names = valid();
    if (std::find(names.begin(), names.end(), s) == names.end())
      return "unknown " + std::string(what) + " " + Quote(s) + " (valid: " + Join(names) + ")";
    member(c) = s;
    return "";
  };
}

Apply NameList(const std::function<std::vector<std::string>&(Config&)>& member,
               const std::function<const std::vector<std::string>&()>& valid,
               std::string_view what) {
  return [=](const toml::node& v, Config& c) -> std::string {
    const toml::array* array = v.as_array();
    if (array == nullptr) return "expected a list of " + std::string(what) + " names";
    if (array->empty()) return "must allow at least one " + std::string(what);
    std::vector<std::string> out;
    for (const toml::node& item : *array) {
      std::optional<std::string> s = item.value<std::string>();
      if (!item.is_string() || !s) return "expected a list of " + std::string(what) + " names";
      const auto& names = valid();
      if (std::find(names.begin(), names.end(), *s) == names.end())
        return "unknown " + std::string(what) + " " + Quote(*s) + " (valid: " + Join(names) + ")";
      if (std::find(out.begin(), out.end(), *s) != out.end())
        return std::string(what) + " " + Quote(*s) + " is listed twice";
      out.push_back(*s);
    }
    member(c) = std::move(out);
    return "";
  };
}

static_assert(policies::kMaxOverbookLevel == 64, "max_overbook_factor's message says 64");

std::vector<Section> Schema() {
  using policies::OverbookMode;
  std::vector<Section> s;
  s.push_back({"", {}, {"policy", "allocator", "priority", "launch", "daemon"}});
  s.push_back({"launch",
               {{"mpi", OneOf([](Config& c) -> std::string& { return c.default_mpi; },
                              pmi::WireUpNames, "MPI wire-up")},
                {"kill_wait_s", Number([](Config& c) -> double& { return c.kill_wait_s; }, 0,
                                       kMaxKillWaitS, false, "seconds between 0 and 3600")}},
               {}});
  s.push_back({"daemon",
               {
                   {"embedded_idle_exit_s",
                    Seconds([](Config& c) -> double& { return c.embedded_idle_exit_s; }, true)},
               },
               {}});
  s.push_back(
      {"policy",
       {
           {"default", OneOf([](Config& c) -> std::string& { return c.default_policy; },
                             policies::PolicyNames, "policy")},
           {"allowed",
            NameList([](Config& c) -> std::vector<std::string>& { return c.allowed_policies; },
                     policies::PolicyNames, "policy")},
           {"spread_allowed", Bool([](Config& c) -> bool& { return c.spread_allowed; })},
           {"overbook_mode",
            [](const toml::node& v, Config& c) -> std::string {
              std::optional<std::string> m = v.value<std::string>();
              if (v.is_string() && m == "pinned") {
                c.policy_options.overbook_mode = OverbookMode::kPinned;
              } else if (v.is_string() && m == "float") {
                c.policy_options.overbook_mode = OverbookMode::kFloat;
              } else {
                return "expected \"pinned\" or \"float\"";
              }
              return "";
            }},
           {"surpass_grace_s",
            Seconds([](Config& c) -> double& { return c.policy_options.surpass_grace_s; }, true)},
           {"backfill", Bool([](Config& c) -> bool& { return c.policy_options.backfill; })},
           {"max_overbook_factor",
            Number([](Config& c) -> double& { return c.policy_options.max_overbook_factor; }, 1,
                   policies::kMaxOverbookLevel, false,
                   "a factor between 1 (no session wider than the allocation) and 64")},
           {"plan_timeout_s",
            Seconds([](Config& c) -> double& { return c.plan_timeout_s; }, false)},
           {"suspend_confirm_timeout_s",
            Seconds([](Config& c) -> double& { return c.suspend_confirm_timeout_s; }, false)},
           {"suspend",
            [](const toml::node& v, Config& c) -> std::string {
              std::optional<std::string> m = v.value<std::string>();
              if (v.is_string() && m == "signal") {
                c.suspend = SuspendMethod::kSignal;
              } else if (v.is_string() && m == "freezer") {
                c.suspend = SuspendMethod::kFreezer;
              } else {
                return "expected \"signal\" or \"freezer\"";
              }
              return "";
            }},
       },
       {}});
  s.push_back(
      {"allocator",
       {
           {"default", OneOf([](Config& c) -> std::string& { return c.default_allocator; },
                             sched::AllocatorNames, "allocator")},
           {"allowed",
            NameList([](Config& c) -> std::vector<std::string>& { return c.allowed_allocators; },
                     sched::AllocatorNames, "allocator")},
           {"round_interval_s",
            Seconds([](Config& c) -> double& { return c.round_interval_s; }, false)},
       },
       {"netload", "auction", "ipwindow"}});
#define PSCHED_NETLOAD(field) \
  {#field, Fraction([](Config& c) -> double& { return c.allocators.netload.field; })}
  s.push_back({"allocator.netload",
               {PSCHED_NETLOAD(w_cpu_load), PSCHED_NETLOAD(w_cpu_utilisation),
                PSCHED_NETLOAD(w_node_bandwidth), PSCHED_NETLOAD(w_used_memory),
                PSCHED_NETLOAD(w_logical_cores), PSCHED_NETLOAD(w_clock_speed),
                PSCHED_NETLOAD(w_total_memory), PSCHED_NETLOAD(w_latency),
                PSCHED_NETLOAD(w_bandwidth), PSCHED_NETLOAD(alpha), PSCHED_NETLOAD(beta)},
               {}});
#undef PSCHED_NETLOAD
  s.push_back(
      {"allocator.auction",
       {
           {"window", PositiveInt([](Config& c) -> int& { return c.allocators.auction.window; })},
           {"max_bids_per_job",
            PositiveInt([](Config& c) -> int& { return c.allocators.auction.max_bids_per_job; })},
           {"max_bids_total",
            PositiveInt([](Config& c) -> int& { return c.allocators.auction.max_bids_total; })},
           {"time_limit_s",
            Seconds([](Config& c) -> double& { return c.allocators.auction.time_limit_s; }, false)},
           {"baseline_bids",
            Bool([](Config& c) -> bool& { return c.allocators.auction.baseline_bids; })},
           {"bid_cap_cut",
            Number([](Config& c) -> double& { return c.allocators.auction.bid_cap_cut; }, 1, 100,
                   true, "a factor > 1 and <= 100")},
       },
       {}});
  s.push_back(
      {"allocator.ipwindow",
       {
           {"window", PositiveInt([](Config& c) -> int& { return c.allocators.ipwindow.window; })},
           {"time_limit_s",
            Seconds([](Config& c) -> double& { return c.allocators.ipwindow.time_limit_s; },
                    false)},
       },
       {}});
  s.push_back(
      {"priority",
       {
           {"module", OneOf([](Config& c) -> std::string& { return c.priority.name; },
                            sched::prio::PriorityNames, "priority module")},
           {"aging_step_s",
            Seconds([](Config& c) -> double& { return c.priority.aging_step_s; }, false)},
           {"history_length",
            PositiveInt([](Config& c) -> int& { return c.priority.history_length; })},
           {"multifactor_age_weight",
            Weight([](Config& c) -> double& { return c.priority.multifactor_age_weight; })},
           {"multifactor_size_weight",
            Weight([](Config& c) -> double& { return c.priority.multifactor_size_weight; })},
           {"multifactor_max_age_s",
            Seconds([](Config& c) -> double& { return c.priority.multifactor_max_age_s; }, true)},
       },
       {}});
  return s;
}

class Reader {
 public:
  Reader(std::string_view source, Config& config) : source_(source), config_(config) {}

  void Walk(const toml::table& table, std::string_view path) {
    const Section* section = Find(path);
    for (auto&& [key, value] : table) {
      std::string full =
          path.empty() ? std::string(key.str()) : std::string(path) + "." + std::string(key.str());
      const bool is_sub = std::find(section->subsections.begin(), section->subsections.end(),
                                    key.str()) != section->subsections.end();
      if (is_sub) {
        if (const toml::table* sub = value.as_table()) {
          Walk(*sub, full);
        } else {
          Report(value.source(), Quote(full) + " must be a table ([" + full + "])");
        }
        continue;
      }
      auto field = std::find_if(section->fields.begin(), section->fields.end(),
                                [&](const Field& f) { return f.key == key.str(); });
      if (field == section->fields.end()) {
        Report(key.source(), "unknown key " + Quote(full) + Valid(*section));
        continue;
      }
      std::string problem = field->apply(value, config_);
      if (!problem.empty()) {
        Report(value.source(), Visible(full) + ": " + problem);
        rejected_.insert(full);
      } else
        set_[full] = value.source();
    }
  }

  void Report(const toml::source_region& where, const std::string& what) {
    errors_.push_back(source_ + ":" + std::to_string(where.begin.line) + ":" +
                      std::to_string(where.begin.column) + ": " + what);
  }
  void ReportAt(const std::string& key, const std::string& what) {
    auto it = set_.find(key);
    if (it != set_.end()) {
      Report(it->second, what);
    } else {
      errors_.push_back(source_ + ": " + what);
    }
  }
  bool WasSet(const std::string& key) const { return set_.count(key) > 0; }
  bool Rejected(const std::string& key) const { return rejected_.count(key) > 0; }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  const Section* Find(std::string_view path) {
    for (const Section& s : schema_)
      if (s.path == path) return &s;
    return &schema_.front();
  }
  static std::string Valid(const Section& s) {
    std::vector<std::string> keys;
    keys.reserve(s.fields.size());
    for (const Field& f : s.fields) keys.emplace_back(f.key);
    for (std::string_view sub : s.subsections) {
      keys.push_back(
          "[" + (s.path.empty() ? std::string(sub) : std::string(s.path) + "." + std::string(sub)) +
          "]");
    }
    std::string where = s.path.empty() ? "at the top level" : "in [" + std::string(s.path) + "]";
    return " " + where + " (valid: " + Join(keys) + ")";
  }

  std::string source_;
  Config& config_;
  std::vector<Section> schema_ = Schema();
  std::vector<std::string> errors_;
  std::map<std::string, toml::source_region> set_;  // keys this file set, and where
  std::set<std::string> rejected_;                  // keys this file set to a bad value
};

// The default must be one of the allowed: reported where this file set either.
void CheckDefaultAllowed(Reader& reader, const std::string& what, const std::string& chosen,
                         const std::vector<std::string>& allowed, const std::string& section) {
  if (allowed.empty() || std::find(allowed.begin(), allowed.end(), chosen) != allowed.end()) return;
  std::string key =
      reader.WasSet(section + ".default") ? section + ".default" : section + ".allowed";
  reader.ReportAt(key, "default " + what + " " + Quote(chosen) + " is not in the allowed list (" +
                           Join(allowed) + ")");
}

// The leader must wait longer than a node confirms a suspend, or a rank that cannot
// stop shows as a silent node instead of the process that did not stop. Checked on
// the merged config (a later file may change either), reported where this file set one.
void CheckPlanOutlastsConfirm(Reader& reader, const Config& c) {
  // A rejected value of either is reported already; the other's check would compare
  // against a value the file did not ask for.
  if (reader.Rejected("policy.plan_timeout_s") ||
      reader.Rejected("policy.suspend_confirm_timeout_s"))
    return;
  if (c.plan_timeout_s > c.suspend_confirm_timeout_s) return;
  std::string key = reader.WasSet("policy.plan_timeout_s") ? "policy.plan_timeout_s"
                                                           : "policy.suspend_confirm_timeout_s";
  std::ostringstream what;
  what << "policy.plan_timeout_s (" << c.plan_timeout_s
       << ") must be longer than policy.suspend_confirm_timeout_s (" << c.suspend_confirm_timeout_s
       << "): the leader would give up on a node before the node could say which process did "
          "not stop";
  reader.ReportAt(key, what.str());
}

}  // namespace

Config DefaultConfig() {
  return Config{};
}

Result<Config> ParseConfig(std::string_view text, std::string_view source, const Config& base) {
  if (std::string problem = NonAsciiOutsideCommentLines(text, source); !problem.empty())
    return Fail(ErrorCode::kInvalidArgument, problem);
  toml::table table;
  try {
    table = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const toml::source_position& at = e.source().begin;
    return Fail(ErrorCode::kInvalidArgument, std::string(source) + ":" + std::to_string(at.line) +
                                                 ":" + std::to_string(at.column) +
                                                 ": malformed TOML: " + Visible(e.description()));
  }
  Config config = base;
  Reader reader(source, config);
  reader.Walk(table, "");
  CheckDefaultAllowed(reader, "policy", config.default_policy, config.allowed_policies, "policy");
  CheckDefaultAllowed(reader, "allocator", config.default_allocator, config.allowed_allocators,
                      "allocator");
  CheckPlanOutlastsConfirm(reader, config);
  if (!reader.errors().empty()) {
    std::string all;
    for (const std::string& e : reader.errors()) all += (all.empty() ? "" : "\n") + e;
    return Fail(ErrorCode::kInvalidArgument, all);
  }
  config.sources.emplace_back(source);
  return config;
}

}  // namespace psched::config
