#pragma once
// A proof's priority in the daemon's queue: critical, high, normal (the default), low.
#include <cstdint>
#include <optional>
#include <string_view>

namespace pacer::host::serve {

enum class Priority : uint8_t { low, normal, high, critical };  // higher runs first
inline constexpr int kPriorityCount = 4;

inline std::string_view priority_name(Priority p) {
  constexpr std::string_view names[] = {"low", "normal", "high", "critical"};
  return names[static_cast<int>(p)];
}

inline std::optional<Priority> parse_priority(std::string_view name) {
  for (int p = 0; p < kPriorityCount; ++p)
    if (priority_name(static_cast<Priority>(p)) == name) return static_cast<Priority>(p);
  return std::nullopt;
}

}  // namespace pacer::host::serve
