#pragma once
// Subgroup membership of every point of a proving key, checked at load ([host]
// check_key_subgroups). read_zkey checks the six header points this way and every backend checks
// that the section points are on the curve; a point on the curve but outside the prime-order
// subgroup passes both, and then yields a proof that does not verify (or, with a key built to do
// so, leaks through a small-order component). The checks are subgroup.hpp's endomorphism tests,
// on random linear combinations of the points for large sections, spread over the CPU pool.
#include <functional>
#include <span>

#include "pacer/backend.hpp"
#include "pacer/formats/zkey.hpp"

namespace pacer {

class ThreadPool;

struct KeyCheckTuning {
  // Sections of at least this many points (and at least this many per pool thread used) are
  // checked in batches: random linear combinations of their points, each one subgroup test, with
  // a miss less likely than 2^-64 (key_check.cpp says why); a failed batch is looked up point by
  // point. Smaller sections, or 0 here, are checked one point at a time.
  size_t batch_min_points_per_task = size_t(1) << 12;
};

// IC and sections 5-9 (A, B1, B2, C, H): every point canonical, on its curve (the identity
// allowed: wires a matrix never uses have it) and in its prime-order subgroup. Throws InputError
// naming the key, the section and the point's index.
void check_key_subgroups(const ProvingKey& key, ThreadPool& pool, const KeyCheckTuning& tuning = {});

// Σ c_i·P_i over one point section of a resident key, computed by the backend that proves with
// those points (its fastest MSM; the engine passes the key's lane).
struct KeyPointSums {
  std::function<PointBytes(Basis, std::span<const Fr256>)> g1;  // sections 5, 6, 8, 9
  std::function<PointBytes(std::span<const Fr256>)> g2;         // section 7
};

// The same checks as check_key_subgroups, over the points a backend made resident (which it has
// checked to be canonical and on the curve): for each section of a group with a cofactor, rounds
// of one MSM with random coefficients below 2^kKeyCheckSumBits and one endomorphism test of the
// sum, until a point outside the subgroup would go unseen with probability below 2^-64
// (key_check.cpp). Coefficients this small take none of the MSM shortcuts that hold only inside
// the subgroup (a GLV split is trivial for them, k -> r - k never applies), so the backend's sum is
// the plain group sum. IC, which no backend holds, is checked point by point. A failed round is
// looked up point by point in the key's bytes, so the InputError names the section and the point.
inline constexpr unsigned kKeyCheckSumBits = 14;
void check_resident_key_subgroups(const ProvingKey& key, const KeyPointSums& sums, ThreadPool& pool);

// The smallest prime factor of the cofactor of G1 or G2 (0: cofactor 1), which bounds how likely
// one batch misses a point outside the subgroup.
uint64_t smallest_cofactor_prime(CurveId curve, bool g2);

}  // namespace pacer
