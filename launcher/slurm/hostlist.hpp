// Slurm hostlist expressions, expanded without asking Slurm.
//
// Slurm hands node lists to jobs in a compressed form (SLURM_JOB_NODELIST):
//   "n[1-3,5],m7"      -> n1 n2 n3 n5 m7
//   "n[01-10]"         -> n01 n02 ... n10  (width of the lower bound is kept)
//   "rack[1-2]-n[1-2]" -> rack1-n1 rack1-n2 rack2-n1 rack2-n2  (groups multiply, left to right)
// Commas inside brackets separate ranges, commas outside separate hosts. Order is kept
// and duplicates are kept (Slurm's own order is the allocation's node order).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace psched::slurm {

// Guard against an expression such as "n[0-999999999]" eating memory: a real allocation
// has far fewer nodes than this.
inline constexpr std::size_t kMaxHostlistHosts = 1'000'000;

// Expands a hostlist expression into host names. Errors (kInvalidArgument) name the
// offending part: unbalanced or nested brackets, an empty host or range, a bound that is
// not a decimal number, a descending range, a host name longer than 255 characters (a
// DNS name's limit), or more than kMaxHostlistHosts hosts.
Result<std::vector<std::string>> ExpandHostlist(std::string_view expression);

}  // namespace psched::slurm
