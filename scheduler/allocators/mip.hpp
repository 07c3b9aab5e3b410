// A small mixed-integer program and its solution with COIN-OR CBC.
//
// The auction and ipwindow allocators state their integer programs with this one
// builder and solve them here, so the CBC specifics (elapsed-time limit, warm start
// in the model's minimisation sense, silent logs) live in one place.
#pragma once

#include <limits>
#include <vector>

namespace psched::sched::mip {

// An absent bound. CBC/Clp take exactly this value (COIN_DBL_MAX) as infinite; a merely
// large finite bound such as 1e30 wrecks the simplex numerics.
inline constexpr double kInfinity = std::numeric_limits<double>::max();

class Problem {
 public:
  // Adds a column (variable) and returns its index.
  int AddColumn(double objective, double lower, double upper, bool integer);
  // Adds a row lower <= sum(coef * x) <= upper and returns its index.
  int AddRow(double lower, double upper);
  void Set(int row, int column, double coefficient);

  double ColumnUpper(int column) const { return column_upper_[column]; }
  int NumColumns() const { return static_cast<int>(objective_.size()); }
  int NumRows() const { return static_cast<int>(row_lower_.size()); }
  // Objective value of x (in the problem's own sense).
  double Objective(const std::vector<double>& x) const;
  // Whether x satisfies every bound and row within `tolerance` (and integrality).
  bool Feasible(const std::vector<double>& x, double tolerance = 1e-6) const;

 private:
  friend struct Solver;
  std::vector<double> objective_, column_lower_, column_upper_;
  std::vector<bool> integer_;
  std::vector<double> row_lower_, row_upper_;
  std::vector<int> entry_row_, entry_column_;
  std::vector<double> entry_value_;
};

struct Options {
  bool maximise = true;
  double time_limit_s = 1.0;       // elapsed (wall) time unless cpu_time
  std::vector<double> warm_start;  // a feasible solution, or empty
  // Count the process's CPU time instead: a simulation's outcome then does not depend
  // on how loaded the machine is. CBC reads getrusage(RUSAGE_SELF), so every thread
  // of the process counts.
  bool cpu_time = false;
};

enum class Status {
  kOptimal,     // proven optimal
  kFeasible,    // stopped by the time limit with a solution better than the warm start
  kNoSolution,  // stopped by the time limit with nothing beyond the warm start (or nothing)
  kInfeasible,  // proven infeasible
};
const char* StatusName(Status status);

struct Solution {
  Status status = Status::kNoSolution;
  std::vector<double> x;  // the best solution known (the warm start when nothing better)
  double objective = 0;
};

Solution Solve(const Problem& problem, const Options& options);

}  // namespace psched::sched::mip
