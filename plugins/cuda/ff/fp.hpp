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

#include "ff/carry.hpp"

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

  // Constants are read through functions holding a local constexpr array: device code may not
  // reference a host constexpr array, and after unrolling the index folds to an immediate.
  PACER_HD static constexpr uint32_t mod(int i) {
    constexpr W32<n> m = P::modulus();
    return m.v[i];
  }
  PACER_HD static constexpr uint32_t r1(int i) {  // Montgomery one
    constexpr W32<n> r = consts::pow2_mod<n>(P::modulus(), 32 * n);
    return r.v[i];
  }
  PACER_HD static constexpr uint32_t r2(int i) {  // converts into Montgomery form
    constexpr W32<n> r = consts::pow2_mod<n>(P::modulus(), 64 * n);
    return r.v[i];
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
    uint32_t s[n];
    Chain c;
    s[0] = c.add_cc(a.l[0], b.l[0]);
PACER_UNROLL
    for (int i = 1; i < n - 1; ++i) s[i] = c.addc_cc(a.l[i], b.l[i]);
    s[n - 1] = c.addc(a.l[n - 1], b.l[n - 1]);  // < 2p < 2^(32n): no carry out
    fp_t r;
    reduce_once(r.l, s);
    return r;
  }
  PACER_HD friend fp_t operator-(const fp_t& a, const fp_t& b) {
    uint32_t d[n];
    Chain c;
    d[0] = c.sub_cc(a.l[0], b.l[0]);
PACER_UNROLL
    for (int i = 1; i < n; ++i) d[i] = c.subc_cc(a.l[i], b.l[i]);
    const uint32_t borrow = c.subc(0, 0);
    fp_t r;
    Chain c2;
    r.l[0] = c2.add_cc(d[0], mod(0) & borrow);
PACER_UNROLL
    for (int i = 1; i < n - 1; ++i) r.l[i] = c2.addc_cc(d[i], mod(i) & borrow);
    r.l[n - 1] = c2.addc(d[n - 1], mod(n - 1) & borrow);
    return r;
  }
  PACER_HD fp_t operator-() const { return zero() - *this; }
  PACER_HD fp_t dbl() const { return *this + *this; }

  // CIOS over 32-bit words: per word b_i, t += a·b_i as a carry chain of the low halves and one
  // of the high halves, then t += m·p likewise (m = t_0·(-p^-1) mod 2^32), then drop t_0 = 0.
  // t stays below 2p, so n+1 words hold every sum (p < 2^(32n-2)).
  template <class C>
  PACER_HD static void mul_chain(uint32_t* r, const uint32_t* a, const uint32_t* b) {
    uint32_t t[n + 1];
PACER_UNROLL
    for (int j = 0; j <= n; ++j) t[j] = 0;
PACER_UNROLL
    for (int i = 0; i < n; ++i) {
      const uint32_t bi = b[i];
      {
        C c;
        t[0] = c.mad_lo_cc(a[0], bi, t[0]);
PACER_UNROLL
        for (int j = 1; j < n; ++j) t[j] = c.madc_lo_cc(a[j], bi, t[j]);
        t[n] = c.addc(t[n], 0);
      }
      {
        C c;
        t[1] = c.mad_hi_cc(a[0], bi, t[1]);
PACER_UNROLL
        for (int j = 1; j < n - 1; ++j) t[j + 1] = c.madc_hi_cc(a[j], bi, t[j + 1]);
        t[n] = c.madc_hi(a[n - 1], bi, t[n]);
      }
      const uint32_t m = t[0] * inv;
      {
        C c;
        t[0] = c.mad_lo_cc(m, mod(0), t[0]);  // becomes 0; only its carry matters
PACER_UNROLL
        for (int j = 1; j < n; ++j) t[j] = c.madc_lo_cc(m, mod(j), t[j]);
        t[n] = c.addc(t[n], 0);
      }
      {
        C c;
        t[1] = c.mad_hi_cc(m, mod(0), t[1]);
PACER_UNROLL
        for (int j = 1; j < n - 1; ++j) t[j + 1] = c.madc_hi_cc(m, mod(j), t[j + 1]);
        t[n] = c.madc_hi(m, mod(n - 1), t[n]);
      }
PACER_UNROLL
      for (int j = 0; j < n; ++j) t[j] = t[j + 1];
      t[n] = 0;
    }
    reduce_once(r, t);
  }

#if !defined(__CUDA_ARCH__)
  // Host: CIOS over 64-bit words ("no-carry" form: the top word of p leaves a spare bit).
  static void mul_host(uint32_t* r, const uint32_t* a, const uint32_t* b) {
    constexpr int N = n / 2;
    using u128 = unsigned __int128;
    static constexpr uint64_t inv64 = consts::neg_inv64(uint64_t(P::modulus().v[0]) | uint64_t(P::modulus().v[1]) << 32);
    uint64_t A[N], B[N], M[N], t[N + 1] = {};
    for (int i = 0; i < N; ++i) {
      A[i] = uint64_t(a[2 * i]) | uint64_t(a[2 * i + 1]) << 32;
      B[i] = uint64_t(b[2 * i]) | uint64_t(b[2 * i + 1]) << 32;
      M[i] = uint64_t(mod(2 * i)) | uint64_t(mod(2 * i + 1)) << 32;
    }
    for (int i = 0; i < N; ++i) {
      u128 s = 0;
      for (int j = 0; j < N; ++j) {
        s = u128(A[j]) * B[i] + t[j] + (s >> 64);
        t[j] = uint64_t(s);
      }
      t[N] = uint64_t(s >> 64);
      const uint64_t m = t[0] * inv64;
      s = u128(m) * M[0] + t[0];
      for (int j = 1; j < N; ++j) {
        s = u128(m) * M[j] + t[j] + (s >> 64);
        t[j - 1] = uint64_t(s);
      }
      s = u128(t[N]) + (s >> 64);
      t[N - 1] = uint64_t(s);
      t[N] = uint64_t(s >> 64);
    }
    uint32_t w[n];
    for (int i = 0; i < N; ++i) {
      w[2 * i] = uint32_t(t[i]);
      w[2 * i + 1] = uint32_t(t[i] >> 32);
    }
    reduce_once(r, w);
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

// --- the four prime fields (moduli as in SNARKJS_FORMATS.md §1, little-endian 64-bit limbs) ---
struct Bn254FqParams {
  static constexpr int n = 8;
  PACER_HDC static W32<8> modulus() {
    return consts::from64<8>({0x3c208c16d87cfd47ull, 0x97816a916871ca8dull, 0xb85045b68181585dull, 0x30644e72e131a029ull});
  }
};
struct Bn254FrParams {
  static constexpr int n = 8;
  PACER_HDC static W32<8> modulus() {
    return consts::from64<8>({0x43e1f593f0000001ull, 0x2833e84879b97091ull, 0xb85045b68181585dull, 0x30644e72e131a029ull});
  }
};
struct Bls12_381FqParams {
  static constexpr int n = 12;
  PACER_HDC static W32<12> modulus() {
    return consts::from64<12>({0xb9feffffffffaaabull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull,
                               0x64774b84f38512bfull, 0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull});
  }
};
struct Bls12_381FrParams {
  static constexpr int n = 8;
  PACER_HDC static W32<8> modulus() {
    return consts::from64<8>({0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull});
  }
};

using bn254_fq = fp_t<Bn254FqParams>;
using bn254_fr = fp_t<Bn254FrParams>;
using bls12_381_fq = fp_t<Bls12_381FqParams>;
using bls12_381_fr = fp_t<Bls12_381FrParams>;

}  // namespace pacer::cuda::ff
