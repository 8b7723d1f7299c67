#pragma once
// The params the fault-injecting allocators share: fail_at = N (the N-th allocation, >= 1) and
// usage = a Usage name (count only those allocations, e.g. "abc": keys and witnesses come from
// the allocator too; absent: count all).
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "pacer/allocator.hpp"
#include "pacer/error.hpp"
#include "pacer/params.hpp"

namespace fault_params {

inline int64_t fail_at(const pacer::Params& params) {
  const int64_t n = params.get_int("fail_at", 1);
  if (n < 1) throw pacer::InputError(params.where() + " fail_at must be at least 1");
  return n;
}

inline std::optional<pacer::Usage> usage(const pacer::Params& params) {
  const std::string name = params.get_string("usage", "");
  for (int u = 0; u <= static_cast<int>(pacer::Usage::staging); ++u)
    if (pacer::usage_name(static_cast<pacer::Usage>(u)) == name) return static_cast<pacer::Usage>(u);
  if (!name.empty()) throw pacer::InputError(params.where() + " usage: not a Usage name (e.g. \"abc\")");
  return std::nullopt;
}

// Counts the allocations of the chosen usage; true for the N-th.
class NthCounter {
 public:
  explicit NthCounter(const pacer::Params& params) : fail_at_(fail_at(params)), usage_(usage(params)) {}
  int64_t count(pacer::Usage u) { return !usage_ || u == *usage_ ? ++count_ : 0; }
  bool is_nth(int64_t n) const { return n == fail_at_; }
  int64_t counted() const { return count_.load(); }

 private:
  const int64_t fail_at_;
  const std::optional<pacer::Usage> usage_;
  std::atomic<int64_t> count_{0};
};

}  // namespace fault_params
