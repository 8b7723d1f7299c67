// Subgroup checks of a key's point sections (key_check.hpp).
#include "pacer/key_check.hpp"

#include <algorithm>
#include <atomic>
#include <string>

#include "pacer/error.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/math/subgroup.hpp"
#include "pacer/thread_pool.hpp"

namespace pacer {

namespace {

// Points per pool task: large enough that claiming a task costs nothing against the checks
// (tens of microseconds a point), small enough that the pool's threads finish together.
constexpr size_t kTaskPoints = 512;

struct Section {
  uint32_t id;
  const char* name;
  std::span<const std::byte> bytes;
  bool g2;
};

// The lowest index of a point that fails, or SIZE_MAX.
template <class Curve, class Group>
size_t first_bad_point(std::span<const std::byte> bytes, ThreadPool& pool) {
  constexpr size_t stride = math::point_bytes<Group>();
  const size_t count = bytes.size() / stride;
  std::atomic<size_t> first_bad{SIZE_MAX};
  pool.parallel_for((count + kTaskPoints - 1) / kTaskPoints, [&](size_t task) {
    const size_t end = std::min(count, (task + 1) * kTaskPoints);
    for (size_t i = task * kTaskPoints; i < end && i < first_bad.load(std::memory_order_relaxed); ++i) {
      const auto p = math::decode_point<Group>(bytes.data() + i * stride);
      if (math::is_valid_key_point(p) && math::in_prime_subgroup<Curve>(p)) continue;
      size_t seen = first_bad.load();
      while (i < seen && !first_bad.compare_exchange_weak(seen, i)) {
      }
      return;
    }
  });
  return first_bad.load();
}

template <class Group>
bool on_the_curve(std::span<const std::byte> bytes, size_t index) {
  return math::is_valid_key_point(math::decode_point<Group>(bytes.data() + index * math::point_bytes<Group>()));
}

}  // namespace

void check_key_subgroups(const ProvingKey& key, ThreadPool& pool) {
  const Section sections[] = {{3, "IC", key.ic, false}, {5, "A", key.a, false},  {6, "B1", key.b1, false},
                              {7, "B2", key.b2, true},  {8, "C", key.c, false},  {9, "H", key.h, false}};
  math::with_curve(key.curve, [&](auto curve) {
    using Curve = decltype(curve);
    for (const auto& s : sections) {
      if (!s.g2 && Curve::Pairing::family == math::PairingFamily::bn) continue;  // BN G1: cofactor 1
      const size_t bad = s.g2 ? first_bad_point<Curve, typename Curve::G2>(s.bytes, pool)
                              : first_bad_point<Curve, typename Curve::G1>(s.bytes, pool);
      if (bad == SIZE_MAX) continue;
      const bool on_curve = s.g2 ? on_the_curve<typename Curve::G2>(s.bytes, bad) : on_the_curve<typename Curve::G1>(s.bytes, bad);
      throw InputError(key.path + ": section " + std::to_string(s.id) + " (" + s.name + "), point " +
                       std::to_string(bad) +
                       (on_curve ? " is not in the curve's prime-order subgroup" : " is not a point of the curve") +
                       ": the key is damaged; make or download it again");
    }
  });
}

}  // namespace pacer
