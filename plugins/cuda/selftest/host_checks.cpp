// Host-only checks of the device algorithms (no GPU needed): the code the kernels run is plain
// C++ templates (ff/, ec/, ntt/plan.hpp, msm/logic.hpp), here run on the host against the
// framework's independent portable math.
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "common.hpp"
#include "ec/curves.hpp"
#include "msm/logic.hpp"
#include "ntt/plan.hpp"
#include "ntt/roots.hpp"

namespace selftest {
namespace {

namespace ff = pacer::cuda::ff;
namespace ec = pacer::cuda::ec;
namespace ntt = pacer::cuda::ntt;
namespace msm = pacer::cuda::msm;

// Same bytes, other type (both sides are little-endian words of one layout).
template <class To, class From>
To cast(const From& f) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  std::memcpy(static_cast<void*>(&t), static_cast<const void*>(&f), sizeof(To));
  return t;
}

// --- fields -------------------------------------------------------------------------------------
template <class Mine, class Theirs>
void check_prime_field(Report& report, Rng& rng, const std::string& name) {
  bool ok = true;
  for (int i = 0; i < Mine::n; ++i) {
    ok &= Mine::mod(i) == uint32_t(Theirs::P[i / 2] >> (32 * (i % 2)));
    ok &= Mine::r1(i) == uint32_t(Theirs::R1[i / 2] >> (32 * (i % 2)));
    ok &= Mine::r2(i) == uint32_t(Theirs::R2[i / 2] >> (32 * (i % 2)));
  }
  ok &= Mine::inv == uint32_t(Theirs::INV);
  report.check(ok, name + ": modulus, R, R^2, -p^-1 match the framework");

  std::vector<Theirs> samples = {Theirs::zero(), Theirs::one(), Theirs::zero() - Theirs::one()};
  for (int i = 0; i < 20000; ++i) samples.push_back(random_field<Theirs>(rng));
  size_t bad_host = 0, bad_chain = 0, bad_add = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const Theirs& a = samples[i];
    const Theirs& b = samples[(i * 7 + 3) % samples.size()];
    const Mine x = cast<Mine>(a), y = cast<Mine>(b);
    Mine chain;
    Mine::template mul_chain<ff::Chain>(chain.l, x.l, y.l);  // the device algorithm, emulated
    bad_host += cast<Theirs>(x * y) != a * b || cast<Theirs>(x.sqr()) != a.sqr();
    bad_chain += cast<Theirs>(chain) != a * b;
    bad_add += cast<Theirs>(x + y) != a + b || cast<Theirs>(x - y) != a - b || cast<Theirs>(-x) != -a ||
               cast<Theirs>(x.dbl()) != a + a;
  }
  report.check(bad_chain == 0, name + ": PTX carry-chain product (emulated) = framework, " +
                                   std::to_string(samples.size()) + " pairs");
  report.check(bad_host == 0, name + ": host product and square = framework");
  report.check(bad_add == 0, name + ": sum, difference, negation, double = framework");
  const Theirs a = random_field<Theirs>(rng);
  report.check(cast<Theirs>(cast<Mine>(a).inverse()) == a.inv() && cast<Theirs>(Mine::from_u32(77)) == Theirs::from_u64(77) &&
                   cast<Theirs>(cast<Mine>(a).to_std()) == Theirs::from_mont(a.to_std()),
               name + ": inverse, from/to standard form");
}

template <class Mine, class Theirs>
void check_quadratic_field(Report& report, Rng& rng, const std::string& name) {
  size_t bad = 0;
  for (int i = 0; i < 5000; ++i) {
    const Theirs a = random_field<Theirs>(rng), b = i % 10 == 0 ? a : random_field<Theirs>(rng);
    const Mine x = cast<Mine>(a), y = cast<Mine>(b);
    bad += cast<Theirs>(x * y) != a * b || cast<Theirs>(x.sqr()) != a.sqr() || cast<Theirs>(x + y) != a + b ||
           cast<Theirs>(x - y) != a - b;
  }
  report.check(bad == 0, name + ": Fq2 product, square, sum, difference = framework");
}

// --- points -------------------------------------------------------------------------------------
template <class Group, class MyF>
bool same_point(const ec::xyzz_t<MyF>& p, const pm::Jacobian<Group>& q) {
  MyF X, Y, Z;
  p.to_jacobian(X, Y, Z);
  pm::Jacobian<Group> j;
  j.X = cast<typename Group::Field>(X);
  j.Y = cast<typename Group::Field>(Y);
  j.Z = cast<typename Group::Field>(Z);
  return j == q;
}

template <class Curve, class Group, class MyF>
void check_points(Report& report, Rng& rng, const pm::Affine<Group>& g, const std::string& name) {
  using J = pm::Jacobian<Group>;
  using A = pm::Affine<Group>;
  using X = ec::xyzz_t<MyF>;
  using MA = ec::affine_t<MyF>;
  const J G = J::from(g);
  size_t bad = 0;
  for (int i = 0; i < 40; ++i) {
    const J P = G.mul(random_below<4>(rng, Curve::Fr::P)), Q = G.mul(random_below<4>(rng, Curve::Fr::P));
    const A pa = P.to_affine(), qa = Q.to_affine();
    const MA mp = cast<MA>(pa), mq = cast<MA>(qa);
    X x = X::from_affine(mp);
    x.add_affine(mq);  // generic
    bad += !same_point(x, P + Q);
    X d = X::from_affine(mp);
    d.add_affine(mp);  // equal points: doubling
    bad += !same_point(d, P.dbl());
    X z = X::from_affine(mp);
    z.add_affine(mp.neg());  // opposite: infinity
    bad += !z.is_inf();
    X e = X::inf();
    e.add_affine(mq);  // into infinity
    bad += !same_point(e, Q);
    X s = x;  // XYZZ + XYZZ, generic / equal / opposite / infinity
    s.add(d);
    bad += !same_point(s, P + Q + P.dbl());
    X t = x;
    t.add(x);
    bad += !same_point(t, (P + Q).dbl());
    X u = x;
    u.add(x.neg());
    bad += !u.is_inf();
    X v = x;
    v.add(X::inf());
    bad += !same_point(v, P + Q);
    X w = X::inf();
    w.add(x);
    bad += !same_point(w, P + Q);
    X k = x;
    k.dbl();
    bad += !same_point(k, (P + Q).dbl());
  }
  report.check(bad == 0, name + ": XYZZ mixed/general addition, doubling, special cases = framework Jacobian");
}

// --- NTT ----------------------------------------------------------------------------------------
// The kernels' pass structure (plan.hpp) run on the host: tiles, butterflies, per-element factors.
template <class F>
void sim_transform(std::vector<F>& a, uint32_t L, bool dit, bool inverse, const std::vector<F>& pw,
                   const std::type_identity_t<std::vector<F>>* coset) {
  const size_t n = size_t(1) << L;
  auto root = [&](uint64_t e) { return pw[inverse ? (n - e % n) % n : e % n]; };
  const ntt::Plan plan = ntt::make_plan(L, dit, 3);  // short passes: many pass boundaries
  for (uint32_t pi = 0; pi < plan.count; ++pi) {
    const ntt::Pass p = plan.pass[pi];
    const uint32_t M = 1u << p.K;
    std::vector<F> x(M);
    for (size_t col = 0; col < (n >> p.K); ++col) {
      for (uint32_t m = 0; m < M; ++m) {
        const size_t gi = ntt::tile_index(col, m, p);
        x[m] = a[gi];
        if (dit && p.P) x[m] = x[m] * root(ntt::pass_twiddle_exp(col, m, L, p));
        if (dit && coset && pi == 0) x[m] = x[m] * (*coset)[ntt::bit_reverse(uint32_t(gi), L)];
      }
      for (uint32_t s = 0; s < p.K; ++s)
        for (uint32_t b = 0; b < M / 2; ++b) {
          const ntt::Butterfly bf = ntt::butterfly(b, s, p.K, dit);
          const F w = root(uint64_t(bf.e) << (L - p.K));
          F u = x[bf.i0], v = x[bf.i1];
          if (dit) {
            v = v * w;
            x[bf.i0] = u + v;
            x[bf.i1] = u - v;
          } else {
            x[bf.i0] = u + v;
            x[bf.i1] = (u - v) * w;
          }
        }
      for (uint32_t m = 0; m < M; ++m) {
        const size_t gi = ntt::tile_index(col, m, p);
        a[gi] = !dit && p.P ? x[m] * root(ntt::pass_twiddle_exp(col, m, L, p)) : x[m];
      }
    }
  }
}

template <class Curve, class Mine>
void check_ntt(Report& report, Rng& rng, const std::string& name) {
  using Fr = typename Curve::Fr;
  report.check(ntt::two_adicity<Mine>() == Curve::two_adicity, name + ": two-adicity");
  size_t bad = 0, bad_roots = 0;
  for (uint32_t L = 1; L <= 11; ++L) {
    const size_t n = size_t(1) << L;
    const pm::Radix2Domain<Fr> dom(n);
    bad_roots += cast<Fr>(ntt::root_of_unity<Mine>(L)) != dom.omega() ||
                 cast<Fr>(ntt::coset_generator<Mine>(L)) != dom.coset_generator();
    std::vector<Mine> pw(n), coset(n);
    Mine acc = Mine::one(), g = ntt::coset_generator<Mine>(L), gacc = ntt::inverse_of_pow2<Mine>(L);
    for (size_t i = 0; i < n; ++i) {
      pw[i] = acc;
      acc = acc * ntt::root_of_unity<Mine>(L);
      coset[i] = gacc;
      gacc = gacc * g;
    }
    std::vector<Fr> x(n);
    for (auto& v : x) v = random_field<Fr>(rng);
    // Oracle: naive DFT with the framework's field.
    std::vector<Fr> y(n, Fr::zero());
    for (size_t k = 0; k < n; ++k) {
      Fr wk = dom.omega().pow(pm::Limbs<1>{k}), w = Fr::one();
      for (size_t j = 0; j < n; ++j, w *= wk) y[k] += x[j] * w;
    }
    std::vector<Mine> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = cast<Mine>(x[i]);
      b[ntt::bit_reverse(uint32_t(i), L)] = cast<Mine>(x[i]);
    }
    sim_transform(a, L, false, false, pw, nullptr);  // DIF: natural -> bit-reversed
    sim_transform(b, L, true, false, pw, nullptr);   // DIT: bit-reversed -> natural
    for (size_t k = 0; k < n; ++k)
      bad += cast<Fr>(a[ntt::bit_reverse(uint32_t(k), L)]) != y[k] || cast<Fr>(b[k]) != y[k];
    // compute_h's chain: inverse DIF, g^j/n on the bit-reversed coefficients, DIT.
    std::vector<Mine> c(n);
    for (size_t i = 0; i < n; ++i) c[i] = cast<Mine>(x[i]);
    sim_transform(c, L, false, true, pw, nullptr);
    sim_transform(c, L, true, false, pw, &coset);
    std::vector<Fr> ref = x;
    dom.to_odd_coset(ref, nullptr, kCpuOracle);
    for (size_t k = 0; k < n; ++k) bad += cast<Fr>(c[k]) != ref[k];
  }
  report.check(bad_roots == 0, name + ": ω_n and the coset generator = framework (n = 2^1..2^11)");
  report.check(bad == 0, name + ": NTT pass structure (DIF, DIT, coset chain) = naive DFT / framework");
}

// --- MSM ----------------------------------------------------------------------------------------
// One scalar piece's pass on the host, as the device's sum_piece: digits placed by the region
// layout, a sort per region, chunked level-1 sums (tiny chunks, so that buckets cross many chunk
// boundaries) and partial levels, into `into`. Throws where a bucket completes twice.
template <class Pt, class MA>
void sim_sum_piece(const std::vector<MA>& points, const std::vector<Fr256>& scalars, const msm::WindowPlan& wp,
                   const msm::RegionLayout& lay, uint32_t chunk1, uint32_t chunk2, std::vector<Pt>& into) {
  const uint32_t W = lay.regions, B = wp.buckets;
  const size_t len = lay.region_len();
  std::vector<uint32_t> keys(lay.entries(), 0), vals(lay.entries(), 0);
  for (size_t i = 0; i < lay.n; ++i) {
    uint32_t s[8];
    std::memcpy(s, scalars[lay.first + i].data(), 32);
    msm::place_digits(lay, s, wp.windows, wp.c, i, [&](size_t slot, uint32_t key, uint32_t val) {
      keys.at(slot) = key;
      vals.at(slot) = val;
    });
  }
  for (uint32_t w = 0; w < W; ++w) {
    std::vector<std::pair<uint32_t, uint32_t>> kv(len);
    for (size_t i = 0; i < len; ++i) kv[i] = {keys[w * len + i], vals[w * len + i]};
    std::sort(kv.begin(), kv.end(), [](auto& x, auto& y) { return x.first < y.first; });
    for (size_t i = 0; i < len; ++i) std::tie(keys[w * len + i], vals[w * len + i]) = kv[i];
  }
  std::vector<uint8_t> written(into.size(), 0);
  bool twice = false;
  auto complete = [&](uint32_t gid, const Pt& acc) {
    twice |= written[gid];
    written[gid] = 1;
    into[gid] = acc;
  };
  // Level 1.
  const uint32_t cpw = uint32_t((len + chunk1 - 1) / chunk1), chunks = W * cpw;
  std::vector<uint32_t> offsets(chunks + 1, 0);
  for (uint32_t t = 0; t < chunks; ++t) {
    const size_t rb = size_t(t / cpw) * len, begin = rb + size_t(t % cpw) * chunk1;
    const size_t end = std::min(begin + chunk1, rb + len);
    offsets[t + 1] = offsets[t] + msm::chunk_shape(keys.data(), begin, end, rb, rb + len).partials();
  }
  std::vector<uint32_t> pk(offsets[chunks]);
  std::vector<Pt> pv(offsets[chunks]);
  for (uint32_t t = 0; t < chunks; ++t) {
    const uint32_t w = t / cpw;
    const size_t rb = size_t(w) * len, begin = rb + size_t(t % cpw) * chunk1;
    const size_t end = std::min(begin + chunk1, rb + len);
    msm::sum_chunk<Pt>(
        keys.data(), begin, end, rb, rb + len,
        [&](Pt& acc, size_t i) {
          MA p = points.at(vals[i] & 0x7fffffffu);
          if (p.is_inf()) return;
          if (vals[i] >> 31) p = p.neg();
          acc.add_affine(p);
        },
        [&](uint32_t key, const Pt& acc) { complete(w * B + key, acc); },
        [&](uint32_t slot, uint32_t key, const Pt& acc) {
          pk.at(offsets[t] + slot) = w * B + key;
          pv.at(offsets[t] + slot) = acc;
        });
  }
  // Partial levels.
  int levels = 0;
  while (!pk.empty() && ++levels < 64) {
    const size_t cnt = pk.size(), lchunks = (cnt + chunk2 - 1) / chunk2;
    std::vector<uint32_t> off(lchunks + 1, 0);
    for (size_t t = 0; t < lchunks; ++t)
      off[t + 1] =
          off[t] + msm::chunk_shape(pk.data(), t * chunk2, std::min(cnt, (t + 1) * chunk2), 0, cnt).partials();
    std::vector<uint32_t> nk(off[lchunks]);
    std::vector<Pt> nv(off[lchunks]);
    for (size_t t = 0; t < lchunks; ++t)
      msm::sum_chunk<Pt>(
          pk.data(), t * chunk2, std::min(cnt, (t + 1) * chunk2), 0, cnt, [&](Pt& acc, size_t i) { acc.add(pv[i]); },
          complete,
          [&](uint32_t slot, uint32_t key, const Pt& acc) {
            nk.at(off[t] + slot) = key;
            nv.at(off[t] + slot) = acc;
          });
    pk.swap(nk);
    pv.swap(nv);
  }
  if (!pk.empty()) throw std::logic_error("MSM simulation: partial sums do not converge");
  if (twice) throw std::logic_error("MSM simulation: a bucket completed twice in one piece");
}

// The device pipeline on the host: each scalar piece's pass (sim_sum_piece), grouped weighting,
// host finish. With copies > 1, points holds copies·n points (copy j = 2^(c·j)·P, c = c_override).
// pieces > 1: the scalars in pieces (split_scalars); later pieces sum into a second bucket array
// that is then merged into the first and reset (merge_buckets_kernel).
template <class Pt, class MA>
Pt sim_msm(const std::vector<MA>& points, size_t n, const std::vector<Fr256>& scalars, uint32_t bits,
           uint32_t c_override, uint32_t chunk1, uint32_t chunk2, uint32_t copies = 1, uint32_t pieces = 1) {
  const msm::WindowPlan wp = msm::plan_windows(n, bits, c_override);
  const msm::ScalarPieces split = msm::split_scalars(n, pieces, msm::kPieceGrowth);
  if (split.count != pieces) throw std::logic_error("MSM simulation: split_scalars gave another piece count");
  const uint32_t W = msm::region_layout(wp.windows, copies, n, n).regions, B = wp.buckets;
  std::vector<Pt> buckets(size_t(W) * B, Pt::inf()), later(buckets.size(), Pt::inf());
  for (uint32_t k = 0; k < split.count; ++k) {
    const msm::RegionLayout lay = msm::region_layout(wp.windows, copies, split.size(k), n, split.begin[k]);
    sim_sum_piece<Pt>(points, scalars, wp, lay, chunk1, chunk2, k == 0 ? buckets : later);
    if (k > 0) {
      for (size_t i = 0; i < buckets.size(); ++i) {
        if (later[i].is_inf()) continue;
        buckets[i].add(later[i]);
        later[i] = Pt::inf();
      }
    }
  }
  // Weighting levels.
  const msm::ReducePlan rp = msm::plan_reduce(B, W);
  std::vector<Pt> r = buckets, x;
  uint32_t m = B, scale = 0;
  for (uint32_t l = 0; l < rp.levels; ++l) {
    const uint32_t ls = rp.log_group[l], mo = m >> ls;
    std::vector<Pt> ro(size_t(W) * mo), xo(size_t(W) * mo);
    for (size_t t = 0; t < ro.size(); ++t)
    {
      const size_t base = (t / mo) * m + ((t % mo) << ls);
      auto get = [&](size_t i) { return r[i]; };
      if (x.empty()) msm::reduce_group<Pt, false>(get, nullptr, base, 1u << ls, scale, ro[t], xo[t]);
      else msm::reduce_group<Pt, true>(get, x.data(), base, 1u << ls, scale, ro[t], xo[t]);
    }
    r.swap(ro);
    x.swap(xo);
    scale += ls;
    m = mo;
  }
  return msm::finish_windows(r.data(), x.empty() ? nullptr : x.data(), W, m, scale, wp.c * copies);
}

template <class Curve, class Group, class MyF>
void check_msm(Report& report, Rng& rng, const pm::Affine<Group>& g, uint32_t bits, pacer::ThreadPool& pool,
               const std::string& name) {
  using MA = ec::affine_t<MyF>;
  using Pt = ec::xyzz_t<MyF>;
  // Signed digits reassemble the scalar.
  size_t bad_digits = 0;
  for (int i = 0; i < 2000; ++i) {
    Fr256 k = random_scalar<Curve>(rng);
    if (i == 0) {
      k = Curve::Fr::P;
      k[0] -= 1;
    }
    for (uint32_t c : {4u, 7u, 13u, 16u, 20u, 22u}) {
      const uint32_t W = (bits + c) / c;
      uint32_t s[8];
      std::memcpy(s, k.data(), 32);
      typename Curve::Fr acc = Curve::Fr::zero(), scale = Curve::Fr::one();
      const auto two_c = Curve::Fr::from_u64(1ull << c);
      msm::signed_digits(s, W, c, [&](uint32_t, uint32_t key, bool neg) {
        const auto d = key == msm::kNoKey ? Curve::Fr::zero() : Curve::Fr::from_u64(key + 1);
        acc += (neg ? -d : d) * scale;
        scale *= two_c;
        bad_digits += key != msm::kNoKey && key >= (1u << (c - 1));
      });
      bad_digits += acc.to_std() != k;
    }
  }
  report.check(bad_digits == 0, name + ": signed window digits reassemble the scalar (c = 4..22)");

  std::vector<pm::Affine<Group>> pts;
  std::vector<Fr256> ks;
  make_points<Curve, Group>(700, rng.next(), g, pool, pts, ks);
  size_t bad = 0, runs = 0;
  for (size_t n : {size_t(1), size_t(2), size_t(5), size_t(64), size_t(700)}) {
    for (int dist = 0; dist < 3; ++dist) {
      std::vector<Fr256> sc(n);
      for (size_t i = 0; i < n; ++i) {
        if (dist == 0) sc[i] = random_scalar<Curve>(rng);
        else if (dist == 1) sc[i] = Fr256{1 + (i % 3), 0, 0, 0};  // three giant buckets
        else sc[i] = i % 2 ? Fr256{} : random_scalar<Curve>(rng);
      }
      std::vector<MA> mine(n);
      for (size_t i = 0; i < n; ++i) mine[i] = cast<MA>(pts[i]);
      const auto ref = pm::detail::small_msm<Group>(std::span(pts).first(n), sc, 256);
      for (auto [c, c1, c2] : {std::array<uint32_t, 3>{0, 8, 8}, {5, 2, 2}, {4, 3, 2}, {9, 1, 3}}) {
        const Pt got = sim_msm<Pt>(mine, n, sc, bits, c, c1, c2);
        bad += !same_point(got, ref);
        ++runs;
      }
      if (n >= 100) {  // scalar pieces: one region per window, later pieces merged into them
        for (uint32_t pieces : {2u, 4u}) {
          bad += !same_point(sim_msm<Pt>(mine, n, sc, bits, 5, 2, 2, 1, pieces), ref);
          ++runs;
        }
      }
    }
  }
  report.check(bad == 0, name + ": MSM pipeline simulated on the host = framework (" + std::to_string(runs) +
                             " runs: sizes 1..700, giant buckets, zeros, windows 4..9, chunks 1..8, 1..4 scalar pieces)");

  // Window copies (G1 bases): copy j of P = 2^(c·j)·P by the framework's doubling; one region
  // (copies = windows), several with a padded last one, and a short window.
  if constexpr (std::is_same_v<Group, typename Curve::G1>) {
    size_t bad_copies = 0, runs_copies = 0;
    for (auto [c, t, c1] : {std::array<uint32_t, 3>{9, 29, 8}, {9, 4, 3}, {5, 6, 2}}) {
      for (size_t n : {size_t(1), size_t(5), size_t(64), size_t(700)}) {
        std::vector<MA> copied(size_t(t) * n);
        for (size_t i = 0; i < n; ++i) {
          pm::Jacobian<Group> q = pm::Jacobian<Group>::from(pts[i]);
          for (uint32_t j = 0; j < t; ++j) {
            if (j) for (uint32_t b = 0; b < c; ++b) q = q.dbl();
            copied[size_t(j) * n + i] = cast<MA>(q.to_affine());
          }
        }
        for (int dist = 0; dist < 3; ++dist) {
          std::vector<Fr256> sc(n);
          for (size_t i = 0; i < n; ++i)
            sc[i] = dist == 0 ? random_scalar<Curve>(rng) : dist == 1 ? Fr256{1 + (i % 3), 0, 0, 0} : Fr256{};
          const auto ref = pm::detail::small_msm<Group>(std::span(pts).first(n), sc, 256);
          bad_copies += !same_point(sim_msm<Pt>(copied, n, sc, bits, c, c1, 2, t), ref);
          ++runs_copies;
          if (n >= 64) {  // scalar pieces, later ones merged into the first one's buckets
            for (uint32_t pieces : {2u, 3u}) {
              bad_copies += !same_point(sim_msm<Pt>(copied, n, sc, bits, c, c1, 2, t, pieces), ref);
              ++runs_copies;
            }
          }
        }
      }
    }
    report.check(bad_copies == 0, name + ": MSM with window copies simulated on the host = framework (" +
                                      std::to_string(runs_copies) + " runs: 29 copies at c = 9, 4 and 6 with a padded "
                                      "last region, sizes 1..700, 1..3 scalar pieces)");
  }
}

}  // namespace

void run_host_checks(Report& report, uint64_t seed) {
  Rng rng(seed);
  pacer::ThreadPool pool(0);
  std::printf("host checks (no GPU needed), seed %llu\n", (unsigned long long)seed);
  check_prime_field<ff::bn254_fq, pm::Bn254::Fq>(report, rng, "BN254 Fq");
  check_prime_field<ff::bn254_fr, pm::Bn254::Fr>(report, rng, "BN254 Fr");
  check_prime_field<ff::bls12_381_fq, pm::Bls12_381::Fq>(report, rng, "BLS12-381 Fq");
  check_prime_field<ff::bls12_381_fr, pm::Bls12_381::Fr>(report, rng, "BLS12-381 Fr");
  check_quadratic_field<ff::fp2_t<ff::bn254_fq>, pm::Bn254::Fq2>(report, rng, "BN254");
  check_quadratic_field<ff::fp2_t<ff::bls12_381_fq>, pm::Bls12_381::Fq2>(report, rng, "BLS12-381");
  check_points<pm::Bn254, pm::Bn254::G1, ec::Bn254G1::F>(report, rng, pm::Bn254::g1_generator(), "BN254 G1");
  check_points<pm::Bn254, pm::Bn254::G2, ec::Bn254G2::F>(report, rng, pm::Bn254::g2_generator(), "BN254 G2");
  check_points<pm::Bls12_381, pm::Bls12_381::G1, ec::Bls12_381G1::F>(report, rng, pm::Bls12_381::g1_generator(), "BLS12-381 G1");
  check_points<pm::Bls12_381, pm::Bls12_381::G2, ec::Bls12_381G2::F>(report, rng, pm::Bls12_381::g2_generator(), "BLS12-381 G2");
  check_ntt<pm::Bn254, ff::bn254_fr>(report, rng, "BN254");
  check_ntt<pm::Bls12_381, ff::bls12_381_fr>(report, rng, "BLS12-381");
  check_msm<pm::Bn254, pm::Bn254::G1, ec::Bn254G1::F>(report, rng, pm::Bn254::g1_generator(), 254, pool, "BN254 G1");
  check_msm<pm::Bn254, pm::Bn254::G2, ec::Bn254G2::F>(report, rng, pm::Bn254::g2_generator(), 254, pool, "BN254 G2");
  check_msm<pm::Bls12_381, pm::Bls12_381::G1, ec::Bls12_381G1::F>(report, rng, pm::Bls12_381::g1_generator(), 255, pool, "BLS12-381 G1");
  check_msm<pm::Bls12_381, pm::Bls12_381::G2, ec::Bls12_381G2::F>(report, rng, pm::Bls12_381::g2_generator(), 255, pool, "BLS12-381 G2");
}

}  // namespace selftest
