#pragma once
// GMP as the independent oracle for field and integer arithmetic in tests.
#include <gmp.h>

#include <random>
#include <string>

#include "pacer/math/field.hpp"

namespace pacer::test {

struct Mpz {
  mpz_t z;
  Mpz() { mpz_init(z); }
  Mpz(const Mpz& o) { mpz_init_set(z, o.z); }
  explicit Mpz(const char* dec) { mpz_init_set_str(z, dec, 10); }
  ~Mpz() { mpz_clear(z); }
  Mpz& operator=(const Mpz& o) {
    mpz_set(z, o.z);
    return *this;
  }
  std::string str() const {
    char* s = mpz_get_str(nullptr, 10, z);
    std::string out(s);
    void (*freefn)(void*, size_t);
    mp_get_memory_functions(nullptr, nullptr, &freefn);
    freefn(s, out.size() + 1);
    return out;
  }
};

template <size_t N>
Mpz to_mpz(const math::Limbs<N>& l) {
  Mpz m;
  mpz_import(m.z, N, -1, sizeof(uint64_t), 0, 0, l.data());
  return m;
}

template <size_t N>
math::Limbs<N> from_mpz(const Mpz& m) {
  math::Limbs<N> l{};
  size_t count = 0;
  mpz_export(l.data(), &count, -1, sizeof(uint64_t), 0, 0, m.z);
  return l;
}

// Uniform in [0, p) via rejection from the modulus' bit length.
template <class F>
math::Limbs<F::N> random_below_p(std::mt19937_64& rng) {
  size_t bits = math::limbs_bit_length(F::P);
  for (;;) {
    math::Limbs<F::N> x{};
    for (auto& l : x) l = rng();
    if (bits % 64) x[F::N - 1] &= (uint64_t(1) << (bits % 64)) - 1;
    if (!math::limbs_geq(x, F::P)) return x;
  }
}

}  // namespace pacer::test
