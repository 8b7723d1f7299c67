#pragma once
// Affine-coordinate work on many points at once that shares one field inversion among them
// (Montgomery's trick: the product of all the denominators is inverted once, and each inverse is
// peeled off it with two multiplications). The CPU MSM's buckets and the setup's fixed-base
// tables both add this way: about 6 multiplications per addition, against 11 for a mixed
// Jacobian addition, and the results are affine, ready to encode or to add again.
#include <cstddef>
#include <span>
#include <vector>

#include "pacer/math/ec.hpp"

namespace pacer::math {

// acc(k) += point(k) for k < n. The accumulators must be n distinct points and neither side of an
// addition the identity. A pair of equal x (P + P, or P + (-P)) has no chord to follow: it is left
// as it is and equal_x(k) called, so the caller adds it another way. prefix and dens are scratch
// of n elements or more (kept by the caller across batches).
template <class Group, class AccAt, class PointAt, class EqualX>
void add_affine_batch(size_t n, AccAt&& acc, PointAt&& point, std::span<typename Group::Field> prefix,
                      std::span<typename Group::Field> dens, EqualX&& equal_x) {
  using F = typename Group::Field;
  // Forward: prefix[k] = the product of the non-zero denominators x_P - x_acc before k.
  F product = F::one();
  for (size_t k = 0; k < n; ++k) {
    const F den = point(k).x - acc(k).x;
    dens[k] = den;
    prefix[k] = product;
    if (!den.is_zero()) product = product * den;
  }
  // Backward: inv is 1/(the product up to k) on entry to step k.
  F inv = product.inv();
  for (size_t k = n; k-- > 0;) {
    const F& den = dens[k];
    if (den.is_zero()) {
      equal_x(k);
      continue;
    }
    Affine<Group>& a = acc(k);
    const Affine<Group> p = point(k);
    const F den_inv = inv * prefix[k];
    inv = inv * den;
    const F lambda = (p.y - a.y) * den_inv;
    const F x3 = lambda.sqr() - a.x - p.x;
    a.y = lambda * (a.x - x3) - a.y;
    a.x = x3;
  }
}

// Jacobian -> affine with one inversion for the whole span; identities stay identities.
template <class Group>
void batch_to_affine(std::span<const Jacobian<Group>> in, std::span<Affine<Group>> out) {
  using F = typename Group::Field;
  std::vector<F> prefix(in.size());
  F acc = F::one();
  for (size_t i = 0; i < in.size(); ++i) {
    prefix[i] = acc;
    if (!in[i].is_identity()) acc *= in[i].Z;
  }
  F inv = acc.inv();
  for (size_t i = in.size(); i-- > 0;) {
    if (in[i].is_identity()) {
      out[i] = Affine<Group>::identity();
      continue;
    }
    const F z_inv = inv * prefix[i];
    inv *= in[i].Z;
    const F z_inv2 = z_inv.sqr();
    out[i] = Affine<Group>::of(in[i].X * z_inv2, in[i].Y * z_inv2 * z_inv);
  }
}

}  // namespace pacer::math
