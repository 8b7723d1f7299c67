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

namespace detail {

template <class F>
concept QuadraticExtension = requires(const F& f) {
  typename F::Base;
  f.c0;
  f.c1;
};

// What the one inversion of a batch chains: each denominator itself, in its own field.
template <class F>
struct InverseChain {
  using K = F;
  static PACER_HOT K value(const F& d) { return d; }
  static PACER_HOT F inverse(const F&, const K& value_inv) { return value_inv; }
  // prefix[k] keeps the chain's product before k; the value is dens[k] itself.
  static PACER_HOT void keep(F& slot, const K& product, const K&) { slot = product; }
  static PACER_HOT K product_before(const F& slot) { return slot; }
  static PACER_HOT K value_at(const F&, const F& d) { return d; }
};

// Over Fq2 = Fq[u]/(u^2 + 1) the chain runs over the norms: 1/d = conj(d) / (d0^2 + d1^2), so the
// prefix products and the inversion are in Fq. Per addition that is 7 base-field multiplications
// for the inverse against 9 (three Fq2 products): 15 against 17 in all, the G2 MSM's bucket
// additions. (The norm is zero only for d = 0: -1 is not a square in Fq.)
template <QuadraticExtension F>
struct InverseChain<F> {
  using K = typename F::Base;
  static PACER_HOT K value(const F& d) { return d.c0.sqr() + d.c1.sqr(); }
  static PACER_HOT F inverse(const F& d, const K& norm_inv) { return F(d.c0 * norm_inv, -(d.c1 * norm_inv)); }
  // prefix[k] keeps both: the product of the norms before k (c0) and the norm of dens[k] (c1).
  static PACER_HOT void keep(F& slot, const K& product, const K& norm) { slot = F(product, norm); }
  static PACER_HOT K product_before(const F& slot) { return slot.c0; }
  static PACER_HOT K value_at(const F& slot, const F&) { return slot.c1; }
};

// dens[k] = den_of(k) for k < n, then 1/dens[k] for each non-zero one, from the last k down, passed
// to use(k, inverse); zero ones to skipped(k). dens and prefix are scratch of n elements or more.
template <class F, class DenOf, class Use, class Skipped>
PACER_HOT inline void batch_inverses(size_t n, DenOf&& den_of, std::span<F> dens, std::span<F> prefix, Use&& use,
                                     Skipped&& skipped) {
  using Chain = InverseChain<F>;
  using K = typename Chain::K;
  K product = K::one();
  for (size_t k = 0; k < n; ++k) {
    dens[k] = den_of(k);
    const K value = Chain::value(dens[k]);
    Chain::keep(prefix[k], product, value);
    if (!dens[k].is_zero()) product = product * value;
  }
  // inv is 1/(the product up to k) on entry to step k.
  K inv = product.inv();
  for (size_t k = n; k-- > 0;) {
    if (dens[k].is_zero()) {
      skipped(k);
      continue;
    }
    const K value_inv = inv * Chain::product_before(prefix[k]);
    inv = inv * Chain::value_at(prefix[k], dens[k]);
    use(k, Chain::inverse(dens[k], value_inv));
  }
}

}  // namespace detail

// acc(k) += point(k) for k < n. The accumulators must be n distinct points and neither side of an
// addition the identity. A pair of equal x (P + P, or P + (-P)) has no chord to follow: it is left
// as it is and equal_x(k) called, so the caller adds it another way. prefix and dens are scratch
// of n elements or more (kept by the caller across batches).
template <class Group, class AccAt, class PointAt, class EqualX>
void add_affine_batch(size_t n, AccAt&& acc, PointAt&& point, std::span<typename Group::Field> prefix,
                      std::span<typename Group::Field> dens, EqualX&& equal_x) {
  using F = typename Group::Field;
  detail::batch_inverses<F>(
      n, [&](size_t k) PACER_HOT { return point(k).x - acc(k).x; }, dens, prefix,
      [&](size_t k, const F& den_inv) PACER_HOT {
        Affine<Group>& a = acc(k);
        const Affine<Group> p = point(k);
        const F lambda = (p.y - a.y) * den_inv;
        const F x3 = lambda.sqr() - a.x - p.x;
        a.y = lambda * (a.x - x3) - a.y;
        a.x = x3;
      },
      equal_x);
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
