// Subgroup checks of a key's point sections (key_check.hpp).
#include "pacer/key_check.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "pacer/error.hpp"
#include "math/host_curves.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/os_random.hpp"
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

// Batched membership: S = Σ c_i·P_i, with independent random b-bit c_i, is in the subgroup when
// every P_i is. If some P_j has a component of order d > 1 outside it, S is in the subgroup for at
// most one residue class of c_j mod d, so with probability at most ⌈2^b/d⌉/2^b, and d is at least
// the smallest prime factor q of the cofactor. Enough independent rounds make a miss less likely
// than 2^-64; a failed round is then looked up point by point, to name the point. A round costs
// one mixed addition a point (into one of 2^b buckets) instead of a [z]P a point.
// (q: smallest_cofactor_prime, below.)
template <class Curve, class Group>
uint64_t smallest_cofactor_prime_of() {
  return smallest_cofactor_prime(Curve::id, std::is_same_v<Group, typename Curve::G2>);
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Rounds for a miss below 2^-64 with b-bit coefficients.
unsigned batch_rounds(uint64_t q, unsigned bits) {
  const uint64_t hits = ((uint64_t(1) << bits) + q - 1) / q;  // ⌈2^b/q⌉ coefficients in one residue class
  const double per_round = double(hits) / double(uint64_t(1) << bits);
  const double bits_per_round = std::max(-std::log2(per_round), 1e-3);
  return unsigned(std::ceil(64.0 / bits_per_round));
}

// True: every point is canonical, on the curve and (but for a 2^-64 chance) in the subgroup.
// False: some point is not; first_bad_point says which.
template <class Curve, class Group>
bool batch_in_subgroup(std::span<const std::byte> bytes, ThreadPool& pool, size_t min_points_per_task) {
  constexpr size_t stride = math::point_bytes<Group>();
  const size_t count = bytes.size() / stride;
  const size_t tasks = std::min<size_t>(pool.size(), count / min_points_per_task);
  const size_t per_task = (count + tasks - 1) / tasks;
  // Buckets: at most a quarter of a task's points, so summing them costs at most half of filling them.
  const unsigned bits = std::clamp(unsigned(std::bit_width(std::max<size_t>(per_task / 4, 1))) - 1, 4u, 16u);
  const size_t buckets = size_t(1) << bits;
  const unsigned rounds = batch_rounds(smallest_cofactor_prime_of<Curve, Group>(), bits);
  // Unpredictable coefficients: a key cannot be built to cancel them.
  const uint64_t seed = os_random_value<uint64_t>();
  std::atomic<bool> bad{false};
  for (unsigned round = 0; round < rounds && !bad; ++round) {
    std::vector<math::Jacobian<Group>> partial(tasks);
    pool.parallel_for(tasks, [&](size_t task) {
      std::vector<math::Jacobian<Group>> bucket(buckets);
      const size_t end = std::min(count, (task + 1) * per_task);
      for (size_t i = task * per_task; i < end; ++i) {
        const auto p = math::decode_point<Group>(bytes.data() + i * stride);
        if (round == 0 && !math::is_valid_key_point(p)) {
          bad = true;
          return;
        }
        const uint64_t c = splitmix64(seed ^ (uint64_t(round) << 56) ^ i) >> (64 - bits);
        if (c) bucket[c] = bucket[c].add_affine(p);
      }
      math::Jacobian<Group> running, sum;  // Σ c·bucket[c] as a sum of suffix sums
      for (size_t c = buckets - 1; c >= 1; --c) {
        running = running + bucket[c];
        sum = sum + running;
      }
      partial[task] = sum;
    });
    math::Jacobian<Group> total;
    for (const auto& p : partial) total = total + p;
    if (!bad && !math::in_prime_subgroup<Curve>(total.to_affine())) bad = true;
  }
  return !bad;
}

template <class Group>
bool on_the_curve(std::span<const std::byte> bytes, size_t index) {
  return math::is_valid_key_point(math::decode_point<Group>(bytes.data() + index * math::point_bytes<Group>()));
}

}  // namespace

// h = the cofactor of the group's order: BN254 G2 h2 = 2p - r = 10069 · 5864401 · 1875725156269 · a
// 177-bit prime; BLS12-381 G1 h1 = 3 · 11² · 10177² · 859267² · 52437899², G2 h2 = 13² · 23² ·
// 2713 · 11953 · 262069 · a large prime (tests/unit/test_key_check.cpp checks them with GMP).
uint64_t smallest_cofactor_prime(CurveId curve, bool g2) {
  if (curve == CurveId::bn254) return g2 ? 10069 : 0;
  return g2 ? 13 : 3;
}

namespace {

// Looks the section up point by point and throws InputError naming the first point that fails;
// returns when every point passes.
template <class Curve>
void refuse_bad_point(const ProvingKey& key, const Section& s, ThreadPool& pool) {
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  const size_t bad = s.g2 ? first_bad_point<Curve, G2>(s.bytes, pool) : first_bad_point<Curve, G1>(s.bytes, pool);
  if (bad == SIZE_MAX) return;
  const bool on_curve = s.g2 ? on_the_curve<G2>(s.bytes, bad) : on_the_curve<G1>(s.bytes, bad);
  throw InputError(key.path + ": section " + std::to_string(s.id) + " (" + s.name + "), point " +
                   std::to_string(bad) +
                   (on_curve ? " is not in the curve's prime-order subgroup" : " is not a point of the curve") +
                   ": the key is damaged; make or download it again");
}

template <class Curve>
bool has_cofactor(bool g2) {
  return g2 || Curve::Pairing::family != math::PairingFamily::bn;  // BN G1: cofactor 1
}

template <class Curve, class Group>
bool sum_in_subgroup(const PointBytes& sum) {
  if (sum.size != math::point_bytes<Group>()) return false;
  const auto p = math::decode_point<Group>(sum.data.data());
  return math::is_valid_key_point(p) && math::in_prime_subgroup<Curve>(p);
}

}  // namespace

void check_key_subgroups(const ProvingKey& key, ThreadPool& pool, const KeyCheckTuning& tuning) {
  const Section sections[] = {{3, "IC", key.ic, false}, {5, "A", key.a, false},  {6, "B1", key.b1, false},
                              {7, "B2", key.b2, true},  {8, "C", key.c, false},  {9, "H", key.h, false}};
  math::with_host_curve(key.curve, [&](auto curve) {
    using Curve = decltype(curve);
    for (const auto& s : sections) {
      if (!has_cofactor<Curve>(s.g2)) continue;
      const size_t points = s.bytes.size() / (s.g2 ? math::point_bytes<typename Curve::G2>()
                                                   : math::point_bytes<typename Curve::G1>());
      if (tuning.batch_min_points_per_task && points >= tuning.batch_min_points_per_task) {
        const size_t min_points = tuning.batch_min_points_per_task;
        const bool all_good = s.g2 ? batch_in_subgroup<Curve, typename Curve::G2>(s.bytes, pool, min_points)
                                   : batch_in_subgroup<Curve, typename Curve::G1>(s.bytes, pool, min_points);
        if (all_good) continue;
      }
      refuse_bad_point<Curve>(key, s, pool);
    }
  });
}

void check_resident_key_subgroups(const ProvingKey& key, const KeyPointSums& sums, ThreadPool& pool) {
  struct Part {
    Section section;
    Basis basis;
  };
  const Part parts[] = {{{5, "A", key.a, false}, Basis::A},  {{6, "B1", key.b1, false}, Basis::B1},
                        {{7, "B2", key.b2, true}, Basis::A}, {{8, "C", key.c, false}, Basis::C},
                        {{9, "H", key.h, false}, Basis::H}};
  math::with_host_curve(key.curve, [&](auto curve) {
    using Curve = decltype(curve);
    using G1 = typename Curve::G1;
    using G2 = typename Curve::G2;
    if (has_cofactor<Curve>(false)) refuse_bad_point<Curve>(key, {3, "IC", key.ic, false}, pool);
    std::vector<Fr256> scalars;
    for (const auto& [s, basis] : parts) {
      if (!has_cofactor<Curve>(s.g2)) continue;
      const size_t count = s.bytes.size() / (s.g2 ? math::point_bytes<G2>() : math::point_bytes<G1>());
      if (count == 0) continue;
      scalars.resize(count);
      const unsigned rounds = batch_rounds(smallest_cofactor_prime(Curve::id, s.g2), kKeyCheckSumBits);
      for (unsigned round = 0; round < rounds; ++round) {
        // Unpredictable coefficients, drawn after the key was read: a key cannot be built to cancel them.
        const uint64_t seed = os_random_value<uint64_t>();
        constexpr size_t kChunk = size_t(1) << 14;
        pool.parallel_for((count + kChunk - 1) / kChunk, [&](size_t chunk) {
          for (size_t i = chunk * kChunk, end = std::min(count, i + kChunk); i < end; ++i)
            scalars[i] = {splitmix64(seed ^ i) >> (64 - kKeyCheckSumBits), 0, 0, 0};
        });
        const bool in_subgroup = s.g2 ? sum_in_subgroup<Curve, G2>(sums.g2(scalars))
                                      : sum_in_subgroup<Curve, G1>(sums.g1(basis, scalars));
        if (in_subgroup) continue;
        refuse_bad_point<Curve>(key, s, pool);
        throw FailedError(key.path + ": the backend's sum over section " + std::to_string(s.id) + " (" + s.name +
                          ") is outside the prime-order subgroup, yet every point of it is inside: the backend "
                          "computed a wrong MSM");
      }
    }
  });
}

}  // namespace pacer
