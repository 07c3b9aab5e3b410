#include "launcher/slurm/hostlist.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <string>

namespace psched::slurm {
namespace {

// Bounds longer than this cannot be real node numbers and would overflow uint64.
constexpr std::size_t kMaxBoundDigits = 18;

// A host name is a DNS name: at most 255 characters (RFC 1035). It also bounds what an
// expression expands to, kMaxHostlistHosts names this long: counting hosts alone let a
// 600-byte SLURM_JOB_NODELIST of bracket groups expand to a million names of 600
// characters each (slurm_env_fuzz: over 2 GB).
constexpr std::size_t kMaxHostNameLength = 255;

std::unexpected<Error> Invalid(std::string_view expression, const std::string& what) {
  return Fail(ErrorCode::kInvalidArgument, "hostlist '" + std::string(expression) + "': " + what);
}

std::string TooMany() {
  return "more than " + std::to_string(kMaxHostlistHosts) + " hosts";
}

// 5 with width 3 -> "005"; wider numbers are kept whole (n[08-10] -> n08 n09 n10).
std::string ZeroPadded(uint64_t value, std::size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Splits at the commas that are outside brackets; checks the brackets while doing so.
Result<std::vector<std::string_view>> SplitHosts(std::string_view expression) {
  std::vector<std::string_view> items;
  std::size_t start = 0;
  bool in_brackets = false;
  for (std::size_t i = 0; i < expression.size(); ++i) {
    char c = expression[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      return Invalid(expression, "whitespace at position " + std::to_string(i));
    }
    if (c == '[') {
      if (in_brackets) return Invalid(expression, "nested '[' at position " + std::to_string(i));
      in_brackets = true;
    } else if (c == ']') {
      if (!in_brackets)
        return Invalid(expression, "unmatched ']' at position " + std::to_string(i));
      in_brackets = false;
    } else if (c == ',' && !in_brackets) {
      items.push_back(expression.substr(start, i - start));
      start = i + 1;
    }
  }
  if (in_brackets) return Invalid(expression, "'[' is never closed");
  items.push_back(expression.substr(start));
  return items;
}

// "1-3,05,7" -> 1 2 3 05 7, each number padded to the width its lower bound was written with.
Result<std::vector<std::string>> ExpandRanges(std::string_view expression, std::string_view ranges,
                                              std::size_t budget) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= ranges.size()) {
    std::size_t comma = ranges.find(',', start);
    if (comma == std::string_view::npos) comma = ranges.size();
    std::string_view range = ranges.substr(start, comma - start);
    start = comma + 1;

    std::size_t dash = range.find('-');
    std::string_view lo_text = range.substr(0, dash);
    std::string_view hi_text = dash == std::string_view::npos ? lo_text : range.substr(dash + 1);
    if (range.empty()) return Invalid(expression, "empty range inside '[...]'");
    if (!AllDigits(lo_text) || !AllDigits(hi_text)) {
      return Invalid(expression,
                     "range '" + std::string(range) + "' is not N or N-M with decimal N, M");
    }
    if (lo_text.size() > kMaxBoundDigits || hi_text.size() > kMaxBoundDigits) {
      return Invalid(expression,
                     "range '" + std::string(range) + "' has a bound that is too large");
    }
    uint64_t lo = 0, hi = 0;
    std::from_chars(lo_text.data(), lo_text.data() + lo_text.size(), lo);
    std::from_chars(hi_text.data(), hi_text.data() + hi_text.size(), hi);
    if (lo > hi) return Invalid(expression, "range '" + std::string(range) + "' is descending");
    if (hi - lo >= budget || out.size() + (hi - lo + 1) > budget) {
      return Invalid(expression, TooMany());
    }
    for (uint64_t v = lo; v <= hi; ++v) {
      out.push_back(ZeroPadded(v, lo_text.size()));
    }
  }
  return out;
}

// One host item such as "rack[1-2]-n[01-04]x": literal text and bracket groups, multiplied
// out left to right.
Result<std::vector<std::string>> ExpandItem(std::string_view expression, std::string_view item,
                                            std::size_t budget) {
  if (item.empty()) {
    return Invalid(expression,
                   "empty host name (two commas in a row, or a leading or trailing comma)");
  }
  std::vector<std::string> names{""};
  std::size_t longest = 0;  // of the names so far
  const auto too_long = [&] {
    return Invalid(expression,
                   "a host name longer than " + std::to_string(kMaxHostNameLength) + " characters");
  };
  std::size_t pos = 0;
  while (pos < item.size()) {
    std::size_t open = item.find('[', pos);
    std::string_view literal =
        item.substr(pos, open == std::string_view::npos ? item.npos : open - pos);
    longest += literal.size();
    if (longest > kMaxHostNameLength) return too_long();
    for (auto& name : names) name.append(literal);
    if (open == std::string_view::npos) break;
    std::size_t close = item.find(']', open);  // SplitHosts checked it exists
    auto numbers = ExpandRanges(expression, item.substr(open + 1, close - open - 1), budget);
    if (!numbers) return Fail(numbers.error());
    if (names.size() * numbers->size() > budget) {
      return Invalid(expression, TooMany());
    }
    std::size_t widest = 0;
    for (const auto& number : *numbers) widest = std::max(widest, number.size());
    longest += widest;
    if (longest > kMaxHostNameLength) return too_long();
    std::vector<std::string> product;
    product.reserve(names.size() * numbers->size());
    for (const auto& name : names) {
      for (const auto& number : *numbers) product.push_back(name + number);
    }
    names = std::move(product);
    pos = close + 1;
  }
  return names;
}

}  // namespace

Result<std::vector<std::string>> ExpandHostlist(std::string_view expression) {
  if (expression.empty()) return Invalid(expression, "empty");
  auto items = SplitHosts(expression);
  if (!items) return Fail(items.error());
  std::vector<std::string> hosts;
  for (std::string_view item : *items) {
    auto names = ExpandItem(expression, item, kMaxHostlistHosts - hosts.size());
    if (!names) return Fail(names.error());
    if (hosts.size() + names->size() > kMaxHostlistHosts) {
      return Invalid(expression, TooMany());
    }
    for (auto& name : *names) hosts.push_back(std::move(name));
  }
  return hosts;
}

}  // namespace psched::slurm
