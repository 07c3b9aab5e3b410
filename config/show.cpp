#include "config/show.hpp"

#include <toml++/toml.h>
#include <sstream>

#include "config/resolve.hpp"

namespace psched::config {

namespace {

toml::array Names(const std::vector<std::string>& names) {
  toml::array a;
  for (const std::string& n : names) a.push_back(n);
  return a;
}

}  // namespace

std::string ToToml(const Config& c) {
  const sched::NetloadConfig& n = c.allocators.netload;
  toml::table netload{{"w_cpu_load", n.w_cpu_load},
                      {"w_cpu_utilisation", n.w_cpu_utilisation},
                      {"w_node_bandwidth", n.w_node_bandwidth},
                      {"w_used_memory", n.w_used_memory},
                      {"w_logical_cores", n.w_logical_cores},
                      {"w_clock_speed", n.w_clock_speed},
                      {"w_total_memory", n.w_total_memory},
                      {"w_latency", n.w_latency},
                      {"w_bandwidth", n.w_bandwidth},
                      {"alpha", n.alpha},
                      {"beta", n.beta}};
  const sched::AuctionConfig& a = c.allocators.auction;
  toml::table auction{{"window", a.window},
                      {"max_bids_per_job", a.max_bids_per_job},
                      {"max_bids_total", a.max_bids_total},
                      {"time_limit_s", a.time_limit_s},
                      {"baseline_bids", a.baseline_bids},
                      {"bid_cap_cut", a.bid_cap_cut}};
  toml::table ipwindow{{"window", c.allocators.ipwindow.window},
                       {"time_limit_s", c.allocators.ipwindow.time_limit_s}};
  toml::table root{
      {"policy",
       toml::table{
           {"default", c.default_policy},
           {"allowed", Names(AllowedPolicies(c))},
           {"spread_allowed", c.spread_allowed},
           {"overbook_mode",
            c.policy_options.overbook_mode == policies::OverbookMode::kFloat ? "float" : "pinned"},
           {"surpass_grace_s", c.policy_options.surpass_grace_s},
           {"backfill", c.policy_options.backfill},
           {"max_overbook_factor", c.policy_options.max_overbook_factor},
           {"plan_timeout_s", c.plan_timeout_s},
           {"suspend_confirm_timeout_s", c.suspend_confirm_timeout_s},
           {"suspend", c.suspend == SuspendMethod::kFreezer ? "freezer" : "signal"},
       }},
      {"allocator", toml::table{{"default", c.default_allocator},
                                {"allowed", Names(AllowedAllocators(c))},
                                {"round_interval_s", c.round_interval_s},
                                {"netload", netload},
                                {"auction", auction},
                                {"ipwindow", ipwindow}}},
      {"daemon", toml::table{{"embedded_idle_exit_s", c.embedded_idle_exit_s}}},
      {"priority", toml::table{{"module", c.priority.name},
                               {"aging_step_s", c.priority.aging_step_s},
                               {"history_length", c.priority.history_length},
                               {"multifactor_age_weight", c.priority.multifactor_age_weight},
                               {"multifactor_size_weight", c.priority.multifactor_size_weight},
                               {"multifactor_max_age_s", c.priority.multifactor_max_age_s}}},
      {"launch", toml::table{{"mpi", c.default_mpi}, {"kill_wait_s", c.kill_wait_s}}},
  };
  std::ostringstream out;
  out << "# effective psched configuration, from: "
      << (c.sources.empty() ? std::string("built-in defaults") : [&] {
           std::string s;
           for (const std::string& src : c.sources) s += (s.empty() ? "" : ", ") + src;
           return s;
         }())
      << "\n"
      << toml::toml_formatter(root, toml::toml_formatter::default_flags |
                                        toml::format_flags::relaxed_float_precision)
      << "\n";
  return out.str();
}

}  // namespace psched::config
