#pragma once
// Prime field in Montgomery form over 32-bit limbs, one template for every modulus. Same value
// layout as the framework's Fp (x·2^(32n) mod p, little-endian words; 2 words = 1 framework limb).
// Every result is fully reduced (< p), so equality and zero tests are plain word compares.
//
// Multiplication: on the device, CIOS over 32-bit words as PTX multiply-add carry chains (Chain);
// on the host, CIOS over 64-bit words with 128-bit products (fast enough for the MSM's final
// window sums and table set-up). mul_chain() is the device algorithm; the host runs it on the
// emulated Chain in the self-test, so the PTX path is checked without a GPU.
#include <cstdint>
#include <cstring>

#include "ff/carry.hpp"
#include "pacer/math/primes.hpp"

namespace pacer::cuda::ff {

template <int N>
struct W32 {
  uint32_t v[N];
};

namespace consts {
template <int N>
PACER_HDC W32<N> from64(const uint64_t (&x)[N / 2]) {
  W32<N> r{};
  for (int i = 0; i < N / 2; ++i) {
    r.v[2 * i] = uint32_t(x[i]);
    r.v[2 * i + 1] = uint32_t(x[i] >> 32);
  }
  return r;
}
template <int N>
PACER_HDC bool geq(const W32<N>& a, const W32<N>& b) {
  for (int i = N - 1; i >= 0; --i)
    if (a.v[i] != b.v[i]) return a.v[i] > b.v[i];
  return true;
}
// 2^doublings mod p by repeated doubling (compile time only).
template <int N>
PACER_HDC W32<N> pow2_mod(const W32<N>& p, int doublings) {
  W32<N> x{};
  x.v[0] = 1;
  for (int d = 0; d < doublings; ++d) {
    uint32_t carry = 0;
    for (int i = 0; i < N; ++i) {
      const uint64_t s = (uint64_t(x.v[i]) << 1) | carry;
      x.v[i] = uint32_t(s);
      carry = uint32_t(s >> 32);
    }
    if (carry || geq(x, p)) {
      uint64_t borrow = 0;
      for (int i = 0; i < N; ++i) {
        const uint64_t s = uint64_t(x.v[i]) - p.v[i] - borrow;
        x.v[i] = uint32_t(s);
        borrow = (s >> 32) & 1;
      }
    }
  }
  return x;
}
PACER_HDC uint32_t neg_inv32(uint32_t p0) {
  uint32_t x = 1;  // Newton: each step doubles the correct low bits
  for (int i = 0; i < 5; ++i) x *= 2 - p0 * x;
  return 0u - x;
}
PACER_HDC uint64_t neg_inv64(uint64_t p0) {
  uint64_t x = 1;
  for (int i = 0; i < 6; ++i) x *= 2 - p0 * x;
  return 0ull - x;
}
}  // namespace consts

// P: `static constexpr int n;` (32-bit words, even) and `PACER_HDC static W32<n> modulus()`,
// with p < 2^(32n-2) (true for the four fields here), which keeps every CIOS sum in n+1 words.
template <class P>
struct fp_t {
  static constexpr int n = P::n;
  using Params = P;
  uint32_t l[n];

  // Constants are read through functions. On the device they hold a local constexpr array
  // (device code may not reference a host constexpr array; after unrolling the index folds to an
  // immediate); on the host they read static members (a local array would be rebuilt per call).
  static constexpr W32<n> kMod = P::modulus();
  static constexpr W32<n> kR1 = consts::pow2_mod<n>(P::modulus(), 32 * n);
  static constexpr W32<n> kR2 = consts::pow2_mod<n>(P::modulus(), 64 * n);
  PACER_HD static constexpr uint32_t mod(int i) {
#if defined(__CUDA_ARCH__)
    constexpr W32<n> m = P::modulus();
    return m.v[i];
#else
    return kMod.v[i];
#endif
  }
  PACER_HD static constexpr uint32_t r1(int i) {  // Montgomery one
#if defined(__CUDA_ARCH__)
    constexpr W32<n> r = consts::pow2_mod<n>(P::modulus(), 32 * n);
    return r.v[i];
#else
    return kR1.v[i];
#endif
  }
  PACER_HD static constexpr uint32_t r2(int i) {  // converts into Montgomery form
#if defined(__CUDA_ARCH__)
    constexpr W32<n> r = consts::pow2_mod<n>(P::modulus(), 64 * n);
    return r.v[i];
#else
    return kR2.v[i];
#endif
  }
  static constexpr uint32_t inv = consts::neg_inv32(P::modulus().v[0]);

  PACER_HD static fp_t zero() {
    fp_t r;
PACER_UNROLL
    for (int i = 0; i < n; ++i) r.l[i] = 0;
    return r;
  }
  PACER_HD static fp_t one() {
    fp_t r;
PACER_UNROLL
    for (int i = 0; i < n; ++i) r.l[i] = r1(i);
    return r;
  }
  PACER_HD static fp_t modulus_words() {
    fp_t r;
PACER_UNROLL
    for (int i = 0; i < n; ++i) r.l[i] = mod(i);
    return r;
  }
  PACER_HD bool is_zero() const {
    uint32_t acc = 0;
PACER_UNROLL
    for (int i = 0; i < n; ++i) acc |= l[i];
    return acc == 0;
  }
  PACER_HD friend bool operator==(const fp_t& a, const fp_t& b) {
    uint32_t acc = 0;
PACER_UNROLL
    for (int i = 0; i < n; ++i) acc |= a.l[i] ^ b.l[i];
    return acc == 0;
  }
  PACER_HD friend bool operator!=(const fp_t& a, const fp_t& b) { return !(a == b); }

  // x in [0, 2p) -> x mod p: subtract p, keep x where that borrowed.
  PACER_HD static void reduce_once(uint32_t* r, const uint32_t* x) {
    uint32_t d[n];
    Chain c;
    d[0] = c.sub_cc(x[0], mod(0));
PACER_UNROLL
    for (int i = 1; i < n; ++i) d[i] = c.subc_cc(x[i], mod(i));
    const uint32_t keep = c.subc(0, 0);  // all ones when x < p
PACER_UNROLL
    for (int i = 0; i < n; ++i) r[i] = (x[i] & keep) | (d[i] & ~keep);
  }

  PACER_HD friend fp_t operator+(const fp_t& a, const fp_t& b) {
    fp_t r;
#if defined(__CUDA_ARCH__)
    uint32_t s[n];
    Chain c;
    s[0] = c.add_cc(a.l[0], b.l[0]);
PACER_UNROLL
    for (int i = 1; i < n - 1; ++i) s[i] = c.addc_cc(a.l[i], b.l[i]);
    s[n - 1] = c.addc(a.l[n - 1], b.l[n - 1]);  // < 2p < 2^(32n): no carry out
    reduce_once(r.l, s);
#else
    add_sub_host<false>(r.l, a.l, b.l);
#endif
    return r;
  }
  PACER_HD friend fp_t operator-(const fp_t& a, const fp_t& b) {
    fp_t r;
#if defined(__CUDA_ARCH__)
    uint32_t d[n];
    Chain c;
    d[0] = c.sub_cc(a.l[0], b.l[0]);
PACER_UNROLL
    for (int i = 1; i < n; ++i) d[i] = c.subc_cc(a.l[i], b.l[i]);
    const uint32_t borrow = c.subc(0, 0);
    Chain c2;
    r.l[0] = c2.add_cc(d[0], mod(0) & borrow);
PACER_UNROLL
    for (int i = 1; i < n - 1; ++i) r.l[i] = c2.addc_cc(d[i], mod(i) & borrow);
    r.l[n - 1] = c2.addc(d[n - 1], mod(n - 1) & borrow);
#else
    add_sub_host<true>(r.l, a.l, b.l);
#endif
    return r;
  }
#if !defined(__CUDA_ARCH__)
  // Host: the same results over 64-bit words (the MSM's final window sums run here).
  template <bool kSub>
  static void add_sub_host(uint32_t* r, const uint32_t* a, const uint32_t* b) {
    constexpr int N = n / 2;
    using u128 = unsigned __int128;
    uint64_t A[N], B[N], M[N], x[N], y[N];
    std::memcpy(A, a, sizeof A);
    std::memcpy(B, b, sizeof B);
    std::memcpy(M, kMod.v, sizeof M);
    uint64_t c = 0;
    for (int j = 0; j < N; ++j) {  // x = a ± b
      const u128 s = kSub ? u128(A[j]) - B[j] - c : u128(A[j]) + B[j] + c;
      x[j] = uint64_t(s);
      c = uint64_t(s >> 64) & 1;
    }
    const bool use_y = kSub ? c != 0 : true;  // sum: y = x - p unless that borrows; difference: y = x + p if it borrowed
    uint64_t c2 = 0;
    for (int j = 0; j < N; ++j) {
      const u128 s = kSub ? u128(x[j]) + M[j] + c2 : u128(x[j]) - M[j] - c2;
      y[j] = uint64_t(s);
      c2 = uint64_t(s >> 64) & 1;
    }
    const bool take_y = kSub ? use_y : c2 == 0;
    std::memcpy(r, take_y ? y : x, sizeof x);
  }
#endif
  PACER_HD fp_t operator-() const { return zero() - *this; }
  PACER_HD fp_t dbl() const { return *this + *this; }

  // CIOS over 32-bit words, the running sum split in two arrays so that every carry chain
  // alternates the low and high halves of ONE product (mad.lo.cc then madc.hi.cc into adjacent
  // words, which ptxas can issue as one wide multiply-add): X holds the even-indexed products
  // a_j·b_i at word positions 0..n-1, Y the odd-indexed ones at positions 1..n. After t += m·p,
  // X[0] = 0 and the division by 2^32 is a change of roles: Y becomes the position-0 array and X,
  // moved down two words while the next odd products are added (X[1] goes to position 0), the
  // position-1 array. The sum stays below 2p·2^32 + ... < 2^(32(n+1)) (p < 2^(32n-1)), so no
  // chain carries out of position n.
  template <class C>
  PACER_HD static void mul_step(uint32_t* X, uint32_t* Y, const uint32_t* a, uint32_t bi, bool first) {
    if (first) {
PACER_UNROLL
      for (int j = 0; j < n; j += 2) {
        X[j] = C::mul_lo(a[j], bi);
        X[j + 1] = C::mul_hi(a[j], bi);
        Y[j] = C::mul_lo(a[j + 1], bi);
        Y[j + 1] = C::mul_hi(a[j + 1], bi);
      }
    } else {
      {  // X[0] += Y[1] (position 0), then Y moves down two words while the odd products go in
        C c;
        X[0] = c.add_cc(X[0], Y[1]);
PACER_UNROLL
        for (int j = 0; j < n - 2; j += 2) {
          Y[j] = c.madc_lo_cc(a[j + 1], bi, Y[j + 2]);
          Y[j + 1] = c.madc_hi_cc(a[j + 1], bi, Y[j + 3]);
        }
        Y[n - 2] = c.madc_lo_cc(a[n - 1], bi, 0);
        Y[n - 1] = c.madc_hi(a[n - 1], bi, 0);
      }
      {  // the even products into X; the carry out is position n, Y's top word
        C c;
        X[0] = c.mad_lo_cc(a[0], bi, X[0]);
        X[1] = c.madc_hi_cc(a[0], bi, X[1]);
PACER_UNROLL
        for (int j = 2; j < n; j += 2) {
          X[j] = c.madc_lo_cc(a[j], bi, X[j]);
          X[j + 1] = c.madc_hi_cc(a[j], bi, X[j + 1]);
        }
        Y[n - 1] = c.addc(Y[n - 1], 0);
      }
    }
    const uint32_t m = X[0] * inv;
    {  // odd words of m·p into Y
      C c;
      Y[0] = c.mad_lo_cc(mod(1), m, Y[0]);
      Y[1] = c.madc_hi_cc(mod(1), m, Y[1]);
PACER_UNROLL
      for (int j = 2; j < n - 2; j += 2) {
        Y[j] = c.madc_lo_cc(mod(j + 1), m, Y[j]);
        Y[j + 1] = c.madc_hi_cc(mod(j + 1), m, Y[j + 1]);
      }
      Y[n - 2] = c.madc_lo_cc(mod(n - 1), m, Y[n - 2]);
      Y[n - 1] = c.madc_hi(mod(n - 1), m, Y[n - 1]);
    }
    {  // even words of m·p into X (X[0] becomes 0), carry into Y's top word
      C c;
      X[0] = c.mad_lo_cc(mod(0), m, X[0]);
      X[1] = c.madc_hi_cc(mod(0), m, X[1]);
PACER_UNROLL
      for (int j = 2; j < n; j += 2) {
        X[j] = c.madc_lo_cc(mod(j), m, X[j]);
        X[j + 1] = c.madc_hi_cc(mod(j), m, X[j + 1]);
      }
      Y[n - 1] = c.addc(Y[n - 1], 0);
    }
  }

  template <class C>
  PACER_HD static void mul_chain(uint32_t* r, const uint32_t* a, const uint32_t* b) {
    static_assert(n % 2 == 0 && n >= 4, "even number of words");
    uint32_t X[n], Y[n];
PACER_UNROLL
    for (int i = 0; i < n; i += 2) {
      mul_step<C>(X, Y, a, b[i], i == 0);
      mul_step<C>(Y, X, a, b[i + 1], false);
    }
    // The last step left Y as the position-0 array (Y[0] = 0) and X at position 1:
    // result = Y[1..n-1] + X[0..n-1] (all at positions 0..), below 2p.
    uint32_t t[n];
    {
      C c;
      t[0] = c.add_cc(X[0], Y[1]);
PACER_UNROLL
      for (int j = 1; j < n - 1; ++j) t[j] = c.addc_cc(X[j], Y[j + 1]);
      t[n - 1] = c.addc(X[n - 1], 0);
    }
    reduce_once(r, t);
  }

#if !defined(__CUDA_ARCH__)
  // Host: CIOS over 64-bit words ("no-carry" form: the top word of p leaves a spare bit).
  static void mul_host(uint32_t* r, const uint32_t* a, const uint32_t* b) {
    constexpr int N = n / 2;
    using u128 = unsigned __int128;
    static constexpr uint64_t inv64 = consts::neg_inv64(uint64_t(kMod.v[0]) | uint64_t(kMod.v[1]) << 32);
    uint64_t A[N], B[N], t[N + 1] = {};
    std::memcpy(A, a, sizeof A);  // little-endian: word pairs are the 64-bit limbs
    std::memcpy(B, b, sizeof B);
    uint64_t M[N];
    std::memcpy(M, kMod.v, sizeof M);
    for (int i = 0; i < N; ++i) {
      uint64_t carry = 0;
      for (int j = 0; j < N; ++j) {
        const u128 s = u128(A[j]) * B[i] + t[j] + carry;
        t[j] = uint64_t(s);
        carry = uint64_t(s >> 64);
      }
      t[N] = carry;
      const uint64_t m = t[0] * inv64;
      u128 s = u128(m) * M[0] + t[0];
      carry = uint64_t(s >> 64);
      for (int j = 1; j < N; ++j) {
        s = u128(m) * M[j] + t[j] + carry;
        t[j - 1] = uint64_t(s);
        carry = uint64_t(s >> 64);
      }
      s = u128(t[N]) + carry;
      t[N - 1] = uint64_t(s);
      t[N] = uint64_t(s >> 64);
    }
    // t < 2p: subtract p unless that borrows.
    uint64_t d[N], borrow = 0;
    for (int j = 0; j < N; ++j) {
      const u128 s = u128(t[j]) - M[j] - borrow;
      d[j] = uint64_t(s);
      borrow = uint64_t(s >> 64) & 1;
    }
    std::memcpy(r, borrow ? t : d, sizeof d);
  }
#endif

  PACER_HD friend fp_t operator*(const fp_t& a, const fp_t& b) {
    fp_t r;
#if defined(__CUDA_ARCH__)
    mul_chain<Chain>(r.l, a.l, b.l);
#else
    mul_host(r.l, a.l, b.l);
#endif
    return r;
  }
  PACER_HD fp_t sqr() const { return *this * *this; }
  PACER_HD fp_t& operator+=(const fp_t& b) { return *this = *this + b; }
  PACER_HD fp_t& operator-=(const fp_t& b) { return *this = *this - b; }
  PACER_HD fp_t& operator*=(const fp_t& b) { return *this = *this * b; }

  // Conversions (host set-up and tests; the device works in Montgomery form throughout).
  PACER_HD static fp_t from_words(const uint32_t* w) {
    fp_t r;
PACER_UNROLL
    for (int i = 0; i < n; ++i) r.l[i] = w[i];
    return r;
  }
  PACER_HD static fp_t from_std(const fp_t& s) {
    fp_t k;
PACER_UNROLL
    for (int i = 0; i < n; ++i) k.l[i] = r2(i);
    return s * k;
  }
  PACER_HD fp_t to_std() const {
    fp_t one_std = zero();
    one_std.l[0] = 1;
    return *this * one_std;
  }
  PACER_HD static fp_t from_u32(uint32_t x) {
    fp_t s = zero();
    s.l[0] = x;
    return from_std(s);
  }
  // x^e for a standard-form exponent of `words` 32-bit words.
  PACER_HD fp_t pow(const uint32_t* e, int words) const {
    fp_t r = one();
    for (int i = words * 32 - 1; i >= 0; --i) {
      r = r.sqr();
      if ((e[i / 32] >> (i % 32)) & 1) r *= *this;
    }
    return r;
  }
  // Fermat inverse x^(p-2) (host set-up only; 0 maps to 0).
  PACER_HD fp_t inverse() const {
    uint32_t e[n];  // p - 2, borrowing (BLS12-381's r ends in the word 1)
    uint32_t borrow = 2;
    for (int i = 0; i < n; ++i) {
      e[i] = mod(i) - borrow;
      borrow = mod(i) < borrow ? 1 : 0;
    }
    return pow(e, n);
  }
};

// --- the four prime fields (moduli from the framework's primes.hpp, shared with the host) ---
struct Bn254FqParams {
  static constexpr int n = 8;
  PACER_HDC static W32<8> modulus() { return consts::from64<8>(::pacer::math::primes::bn254_fq().w); }
};
struct Bn254FrParams {
  static constexpr int n = 8;
  PACER_HDC static W32<8> modulus() { return consts::from64<8>(::pacer::math::primes::bn254_fr().w); }
};
struct Bls12_381FqParams {
  static constexpr int n = 12;
  PACER_HDC static W32<12> modulus() { return consts::from64<12>(::pacer::math::primes::bls12_381_fq().w); }
};
struct Bls12_381FrParams {
  static constexpr int n = 8;
  PACER_HDC static W32<8> modulus() { return consts::from64<8>(::pacer::math::primes::bls12_381_fr().w); }
};

using bn254_fq = fp_t<Bn254FqParams>;
using bn254_fr = fp_t<Bn254FrParams>;
using bls12_381_fq = fp_t<Bls12_381FqParams>;
using bls12_381_fr = fp_t<Bls12_381FrParams>;

}  // namespace pacer::cuda::ff
