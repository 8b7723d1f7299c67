#pragma once
// Prime fields in Montgomery form over 64-bit limbs, one template for every modulus.
// Constants (R mod p, R^2 mod p, -p^-1 mod 2^64) are derived at compile time from the modulus,
// so a curve is declared by its primes alone. Portable C++ for any 64-bit GCC/Clang target, with
// no instruction-set intrinsics. How products and carry chains are computed is a template
// parameter (PortableMul here); the cpu plugin's kernels and the framework's own host code plug in
// x86-64 ones (mulx/adx, adc/sbb chains) from their private headers without a second field type.
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

// Hot arithmetic must inline into the MSM/NTT loops; GCC otherwise keeps these out of line.
// Not in sanitizer or unoptimised builds, where forced inlining only multiplies compile time, nor
// where PACER_NO_FORCED_INLINE is defined (test programs whose oracles are not hot).
#if defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__) && !defined(PACER_NO_FORCED_INLINE)
#define PACER_HOT __attribute__((always_inline))
#else
#define PACER_HOT
#endif

// GCC's loop pragma (clang reads it too); other compilers may warn about pragmas they do not know.
#if !defined(__GNUC__)
#define PACER_UNROLL_8
#else
#define PACER_UNROLL_8 _Pragma("GCC unroll 8")
#endif

namespace pacer::math {

using u128 = unsigned __int128;

template <size_t N>
using Limbs = std::array<uint64_t, N>;

// --- plain multi-precision helpers (little-endian limbs) ---------------------------------------

template <size_t N>
constexpr Limbs<N> limbs_from_hex(std::string_view hex) {
  if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
  Limbs<N> out{};
  size_t bit = 0;
  for (size_t i = hex.size(); i-- > 0;) {
    char ch = hex[i];
    uint64_t d = ch >= '0' && ch <= '9' ? uint64_t(ch - '0')
                 : ch >= 'a' && ch <= 'f' ? uint64_t(ch - 'a' + 10)
                 : ch >= 'A' && ch <= 'F' ? uint64_t(ch - 'A' + 10)
                                          : throw std::invalid_argument("bad hex digit");
    if (bit / 64 >= N) throw std::invalid_argument("hex constant too wide");
    out[bit / 64] |= d << (bit % 64);
    bit += 4;
  }
  return out;
}

template <size_t N>
PACER_HOT constexpr bool limbs_geq(const Limbs<N>& a, const Limbs<N>& b) {
  for (size_t i = N; i-- > 0;)
    if (a[i] != b[i]) return a[i] > b[i];
  return true;
}

template <size_t N>
PACER_HOT constexpr bool limbs_is_zero(const Limbs<N>& a) {
  uint64_t acc = 0;
  for (auto x : a) acc |= x;
  return acc == 0;
}

namespace detail {
// a += b or a -= b, returning the carry (borrow). Portable; GCC 12 compiles it into stack round
// trips, ~3-5x the instructions of one adc/sbb chain, which is why Fp takes the chain from its
// policy where the policy has one (PortableMul below).
template <bool kSubtract, size_t N>
PACER_HOT constexpr uint64_t limbs_carry_chain(Limbs<N>& a, const Limbs<N>& b) {
  uint64_t carry = 0;
  for (size_t i = 0; i < N; ++i) {
    const u128 r = kSubtract ? u128(a[i]) - b[i] - carry : u128(a[i]) + b[i] + carry;
    a[i] = uint64_t(r);
    carry = uint64_t(r >> 64) & 1;
  }
  return carry;
}
}  // namespace detail

// a -= b, returns the borrow.
template <size_t N>
PACER_HOT constexpr uint64_t limbs_sub(Limbs<N>& a, const Limbs<N>& b) {
  return detail::limbs_carry_chain<true>(a, b);
}

// a += b, returns the carry.
template <size_t N>
PACER_HOT constexpr uint64_t limbs_add(Limbs<N>& a, const Limbs<N>& b) {
  return detail::limbs_carry_chain<false>(a, b);
}

template <size_t N>
constexpr size_t limbs_bit_length(const Limbs<N>& a) {
  for (size_t i = N; i-- > 0;)
    if (a[i]) return i * 64 + 64 - size_t(__builtin_clzll(a[i]));
  return 0;
}

template <size_t N>
constexpr bool limbs_bit(const Limbs<N>& a, size_t i) {
  return i < N * 64 && ((a[i / 64] >> (i % 64)) & 1);
}

template <size_t N>
constexpr Limbs<N> limbs_shr(const Limbs<N>& a, size_t k) {
  Limbs<N> out{};
  size_t w = k / 64, b = k % 64;
  for (size_t i = 0; i + w < N; ++i) {
    out[i] = a[i + w] >> b;
    if (b && i + w + 1 < N) out[i] |= a[i + w + 1] << (64 - b);
  }
  return out;
}

// Decimal string of a standard-form integer (for JSON output).
template <size_t N>
std::string limbs_to_decimal(Limbs<N> a) {
  if (limbs_is_zero(a)) return "0";
  std::string digits;
  constexpr uint64_t kChunk = 10000000000000000000ull;  // 10^19
  while (!limbs_is_zero(a)) {
    u128 rem = 0;
    for (size_t i = N; i-- > 0;) {
      u128 cur = (rem << 64) | a[i];
      a[i] = uint64_t(cur / kChunk);
      rem = cur % kChunk;
    }
    uint64_t r = uint64_t(rem);
    for (int d = 0; d < 19; ++d) {
      digits.push_back(char('0' + r % 10));
      r /= 10;
    }
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  return std::string(digits.rbegin(), digits.rend());
}

// Parses a non-negative decimal integer; throws std::invalid_argument if not digits or too wide.
template <size_t N>
Limbs<N> limbs_from_decimal(std::string_view s) {
  if (s.empty()) throw std::invalid_argument("empty number");
  Limbs<N> out{};
  for (char ch : s) {
    if (ch < '0' || ch > '9') throw std::invalid_argument("not a decimal number");
    u128 carry = uint64_t(ch - '0');
    for (size_t i = 0; i < N; ++i) {
      u128 cur = u128(out[i]) * 10 + carry;
      out[i] = uint64_t(cur);
      carry = cur >> 64;
    }
    if (carry) throw std::invalid_argument("number too large");
  }
  return out;
}

// --- Montgomery field ---------------------------------------------------------------------------

namespace detail {
template <size_t N>
constexpr uint64_t neg_inverse_mod_2_64(uint64_t p0) {
  uint64_t x = 1;  // Newton: each step doubles the correct low bits
  for (int i = 0; i < 7; ++i) x *= 2 - p0 * x;
  return ~x + 1;
}
// 2^(64*N*times) mod p by repeated doubling (compile time only).
template <size_t N>
constexpr Limbs<N> pow2_mod(const Limbs<N>& p, size_t doublings) {
  Limbs<N> x{};
  x[0] = 1;
  for (size_t i = 0; i < doublings; ++i) {
    uint64_t carry = limbs_add(x, x);
    if (carry || limbs_geq(x, p)) limbs_sub(x, p);
  }
  return x;
}
}  // namespace detail

// The portable Montgomery product; the reference every other implementation is tested against.
// Mul policies: `template <class F> static limbs_t mul(const limbs_t&, const limbs_t&)` returning
// a·b·R^-1 mod p fully reduced; optionally `template <bool kSubtract, size_t N> static uint64_t
// carry_chain(Limbs<N>& a, const Limbs<N>& b)`, a += b (a -= b) returning the carry (borrow), which
// Fp's sums, differences and reductions then use at run time instead of the portable chain.
struct PortableMul {
  template <class F>
  static PACER_HOT constexpr typename F::limbs_t mul(const typename F::limbs_t& a, const typename F::limbs_t& b) {
    return F::mont_mul(a, b);
  }
};

// Params: `static constexpr size_t N; static constexpr Limbs<N> modulus;` with modulus odd and
// below 2^(64N-1) (one spare bit, true for BN254 and BLS12-381 fields). Mul: how products are
// computed (same integers whatever the policy; see PortableMul).
template <class Params, class Mul = PortableMul>
class Fp {
 public:
  static constexpr size_t N = Params::N;
  using limbs_t = Limbs<N>;
  static constexpr limbs_t P = Params::modulus;
  static constexpr uint64_t INV = detail::neg_inverse_mod_2_64<N>(P[0]);
  static constexpr limbs_t R1 = detail::pow2_mod<N>(P, 64 * N);      // Montgomery one
  static constexpr limbs_t R2 = detail::pow2_mod<N>(P, 2 * 64 * N);  // converts into Montgomery
  static constexpr limbs_t R3 = detail::pow2_mod<N>(P, 3 * 64 * N);  // fixes up binary_inverse
  static constexpr size_t kBytes = N * 8;
  static_assert(P[N - 1] >> 63 == 0, "modulus needs a spare top bit");

  // a += b (a -= b), returning the carry (borrow): the policy's chain at run time where it has one.
  template <bool kSubtract>
  static PACER_HOT constexpr uint64_t carry_chain(limbs_t& a, const limbs_t& b) {
    if constexpr (requires { Mul::template carry_chain<kSubtract, N>(a, b); }) {
      if (!std::is_constant_evaluated()) return Mul::template carry_chain<kSubtract, N>(a, b);
    }
    return detail::limbs_carry_chain<kSubtract>(a, b);
  }
  static PACER_HOT constexpr uint64_t add_limbs(limbs_t& a, const limbs_t& b) { return carry_chain<false>(a, b); }
  static PACER_HOT constexpr uint64_t sub_limbs(limbs_t& a, const limbs_t& b) { return carry_chain<true>(a, b); }

  limbs_t v{};  // Montgomery form: x * R mod p

  constexpr Fp() = default;
  static constexpr Fp zero() { return Fp(); }
  static constexpr Fp one() { return from_mont(R1); }
  static PACER_HOT constexpr Fp from_mont(const limbs_t& m) {
    Fp r;
    r.v = m;
    return r;
  }
  // Standard-form integer (must be < p) into the field.
  static constexpr Fp from_std(const limbs_t& s) { return from_mont(mont_mul(s, R2)); }
  static constexpr Fp from_u64(uint64_t x) {
    limbs_t s{};
    s[0] = x;
    return from_std(s);
  }
  static Fp from_decimal(std::string_view s) { return from_std(limbs_from_decimal<N>(s)); }
  constexpr limbs_t to_std() const {
    limbs_t one{};
    one[0] = 1;
    return mont_mul(v, one);
  }
  std::string to_decimal() const { return limbs_to_decimal(to_std()); }

  PACER_HOT constexpr bool is_zero() const { return limbs_is_zero(v); }
  // Branch-free: std::array's == is a memcmp call, which showed up in MSM profiles.
  friend PACER_HOT constexpr bool operator==(const Fp& a, const Fp& b) {
    uint64_t diff = 0;
    for (size_t i = 0; i < N; ++i) diff |= a.v[i] ^ b.v[i];
    return diff == 0;
  }
  friend constexpr bool operator!=(const Fp& a, const Fp& b) { return !(a == b); }

  // Sums and differences select with masks, not branches: the MSM feeds them random values, and
  // a branch on the comparison mispredicts half the time (~15 cycles, as much as the addition).
  friend PACER_HOT constexpr Fp operator+(Fp a, const Fp& b) {
    add_limbs(a.v, b.v);  // no carry out: both < p < 2^(64N-1)
    a.v = reduce_once(a.v);
    return a;
  }
  friend PACER_HOT constexpr Fp operator-(Fp a, const Fp& b) {
    const uint64_t mask = 0 - sub_limbs(a.v, b.v);
    limbs_t p_or_zero;
    for (size_t i = 0; i < N; ++i) p_or_zero[i] = P[i] & mask;
    add_limbs(a.v, p_or_zero);
    return a;
  }
  PACER_HOT constexpr Fp operator-() const { return is_zero() ? *this : from_mont(P) - *this; }
  friend PACER_HOT constexpr Fp operator*(const Fp& a, const Fp& b) {
    if (std::is_constant_evaluated()) return from_mont(mont_mul(a.v, b.v));
    return from_mont(Mul::template mul<Fp>(a.v, b.v));
  }
  // a + b left in [0, 2p): only as a factor of operator*, which accepts factors below 2p because
  // 4p < 2^(64N) (the product then stays below 2p·R). Saves a reduction in Karatsuba-style sums.
  static PACER_HOT constexpr Fp sum_as_factor(Fp a, const Fp& b) {
    static_assert(P[N - 1] >> 62 == 0, "factors below 2p need 4p < 2^(64N)");
    add_limbs(a.v, b.v);
    return a;
  }
  PACER_HOT Fp& operator+=(const Fp& b) { return *this = *this + b; }
  PACER_HOT Fp& operator-=(const Fp& b) { return *this = *this - b; }
  PACER_HOT Fp& operator*=(const Fp& b) { return *this = *this * b; }
  PACER_HOT constexpr Fp dbl() const { return *this + *this; }
  PACER_HOT constexpr Fp sqr() const { return *this * *this; }

  // x^e for a standard-form exponent.
  template <size_t M>
  constexpr Fp pow(const Limbs<M>& e) const {
    Fp r = one();
    for (size_t i = limbs_bit_length(e); i-- > 0;) {
      r = r.sqr();
      if (limbs_bit(e, i)) r *= *this;
    }
    return r;
  }
  // Inverse by the binary extended Euclidean algorithm, twice as fast as Fermat's x^(p-2) (whose
  // chain of ~380 dependent products is latency-bound); the MSM's batch inversions spend ~5% of a
  // proof here. Variable time, as the MSM's bucket accesses are. The inverse of zero is zero.
  constexpr Fp inv() const {
    if (is_zero()) return Fp();
    // The loop inverts v = xR as an integer: v^-1 = x^-1 R^-1; a product with R^3 (which
    // Montgomery multiplication turns into ·R^2) gives x^-1 R, the Montgomery form of x^-1.
    return from_mont(binary_inverse(v)) * from_mont(R3);
  }

  // The portable product as a call: a fallback that does not bloat hot loops inlined twice.
  [[gnu::noinline]] static limbs_t mont_mul_out_of_line(const limbs_t& a, const limbs_t& b) { return mont_mul(a, b); }

  // x in [0, 2p) -> x mod p, without a data-dependent branch on the comparison.
  static PACER_HOT constexpr limbs_t reduce_once(const limbs_t& x) {
    limbs_t d = x;
    const uint64_t keep_x = 0 - sub_limbs(d, P);
    for (size_t i = 0; i < N; ++i) d[i] ^= (d[i] ^ x[i]) & keep_x;
    return d;
  }

  // CIOS Montgomery multiplication a*b*R^-1 mod p, in the "no-carry" form: with the modulus'
  // top limb below 2^63 - 1 the running sum never needs an (N+1)-th word (cf. gnark-crypto).
  static PACER_HOT constexpr limbs_t mont_mul(const limbs_t& a, const limbs_t& b) {
    static_assert(P[N - 1] < (~uint64_t(0) >> 1) - 1, "no-carry CIOS needs a spare top bit");
    limbs_t t{};
PACER_UNROLL_8
    for (size_t i = 0; i < N; ++i) {
      u128 s = u128(a[0]) * b[i] + t[0];
      uint64_t carry = uint64_t(s >> 64);
      const uint64_t m = uint64_t(s) * INV;
      u128 r = u128(m) * P[0] + uint64_t(s);
      uint64_t carry2 = uint64_t(r >> 64);
PACER_UNROLL_8
      for (size_t j = 1; j < N; ++j) {
        s = u128(a[j]) * b[i] + t[j] + carry;
        carry = uint64_t(s >> 64);
        r = u128(m) * P[j] + uint64_t(s) + carry2;
        carry2 = uint64_t(r >> 64);
        t[j - 1] = uint64_t(r);
      }
      t[N - 1] = carry + carry2;
    }
    return reduce_once(t);
  }

 private:
  // u^-1 mod p for 0 < u < p as integers. Invariants: a ≡ x1·u and b ≡ x2·u (mod p); the odd
  // one of a, b shrinks each step until one of them is 1. Out of line: inlined into the MSM's
  // flush it costs that hot loop registers.
  [[gnu::noinline]] static constexpr limbs_t binary_inverse(const limbs_t& u) {
    constexpr limbs_t one{1};
    constexpr auto halve_mod_p = [](limbs_t& x) {  // x + p < 2^(64N): p has a spare bit
      if (x[0] & 1) add_limbs(x, P);
      x = limbs_shr(x, 1);
    };
    // x1, x2 are residues below p: Fp's subtraction is the modular one they need.
    limbs_t a = u, b = P, x1 = one, x2{};
    while (a != one && b != one) {
      while ((a[0] & 1) == 0) {
        a = limbs_shr(a, 1);
        halve_mod_p(x1);
      }
      while ((b[0] & 1) == 0) {
        b = limbs_shr(b, 1);
        halve_mod_p(x2);
      }
      if (limbs_geq(a, b)) {
        sub_limbs(a, b);
        x1 = (from_mont(x1) - from_mont(x2)).v;
      } else {
        sub_limbs(b, a);
        x2 = (from_mont(x2) - from_mont(x1)).v;
      }
    }
    return a == one ? x1 : x2;
  }
};

}  // namespace pacer::math
