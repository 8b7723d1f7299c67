/* Native Montgomery arithmetic for the circuit's field, in place of two functions of circom's wasm
 * runtime (wasm_glue.c): Fr_F1m_mul (a*b/R mod q) and Fr_F1m_mReduct (t/R mod q for a 512-bit t),
 * with R = 2^256. The wasm code computes them on 32-bit limbs (wasm has no 64x64->128 product):
 * a quarter of a large circuit's witness time. Here on 64-bit limbs with 128-bit products.
 *
 * The result of Montgomery reduction does not depend on the limb size: for t < qR there is one
 * M in [0, R) with t + Mq = 0 mod R, so (t + Mq)/R < 2q, and one conditional subtraction gives
 * the value in [0, q) that the wasm code gives. Inputs outside that range (never made by circom's
 * runtime) are left to the wasm code, and so is the first stretch of calls: the glue compares
 * both results there and keeps the wasm code for good at the first difference. */
#ifndef PACER_WASM_FIELD_H
#define PACER_WASM_FIELD_H

#include <stdint.h>
#include <string.h>

typedef unsigned __int128 pacer_u128;

typedef struct {
  uint64_t q[4];
  uint64_t inv; /* -q^(-1) mod 2^64 */
  int state;    /* 0: not set up (or not a 256-bit field), 1: in use, -1: gave up (a difference) */
  uint32_t agreed[2]; /* calls of each function checked against the wasm code so far */
} pacer_field;

/* Calls compared with the wasm code before the native results are used alone. */
#define PACER_FIELD_CHECKS 256u

/* From the prime as the module reports it (n32 little-endian 32-bit words): only 8 words (a
 * 256-bit R) and an odd q are taken. */
static void pacer_field_setup(pacer_field* f, const uint32_t* prime, uint32_t n32) {
  memset(f, 0, sizeof *f);
  if (n32 != 8 || !(prime[0] & 1u)) return;
  for (int i = 0; i < 4; ++i) f->q[i] = (uint64_t)prime[2 * i] | (uint64_t)prime[2 * i + 1] << 32;
  uint64_t inv = 1; /* Newton: each step doubles the correct low bits of q^(-1) */
  for (int i = 0; i < 6; ++i) inv *= 2 - f->q[0] * inv;
  f->inv = 0 - inv;
  f->state = 1;
}

/* a < q, a as four little-endian words. */
static inline int pacer_field_below_q(const pacer_field* f, const uint64_t* a) {
  for (int i = 4; i-- > 0;)
    if (a[i] != f->q[i]) return a[i] < f->q[i];
  return 0;
}

/* r = the 257-bit (top, t) minus q when it is at least q: the last step of both reductions. */
static inline void pacer_field_final(const pacer_field* f, uint64_t* r, const uint64_t* t, uint64_t top) {
  uint64_t d[4], borrow = 0;
  for (int i = 0; i < 4; ++i) {
    pacer_u128 x = (pacer_u128)t[i] - f->q[i] - borrow;
    d[i] = (uint64_t)x;
    borrow = (uint64_t)(x >> 64) & 1;
  }
  memcpy(r, (top || !borrow) ? d : t, 32);
}

/* r = a*b/R mod q for a, b < q (CIOS: one row of the product, then one word of reduction). */
static inline void pacer_field_mul(const pacer_field* f, uint64_t* r, const uint64_t* a, const uint64_t* b) {
  uint64_t t[5] = {0, 0, 0, 0, 0};
  for (int i = 0; i < 4; ++i) {
    pacer_u128 c = 0;
    for (int j = 0; j < 4; ++j) {
      c += (pacer_u128)a[j] * b[i] + t[j];
      t[j] = (uint64_t)c;
      c >>= 64;
    }
    c += t[4];
    t[4] = (uint64_t)c;
    const uint64_t over = (uint64_t)(c >> 64);
    const uint64_t m = t[0] * f->inv;
    c = ((pacer_u128)m * f->q[0] + t[0]) >> 64;
    for (int j = 1; j < 4; ++j) {
      c += (pacer_u128)m * f->q[j] + t[j];
      t[j - 1] = (uint64_t)c;
      c >>= 64;
    }
    c += t[4];
    t[3] = (uint64_t)c;
    t[4] = over + (uint64_t)(c >> 64);
  }
  pacer_field_final(f, r, t, t[4]);
}

/* r = t/R mod q for a 512-bit t (eight little-endian words) whose high half is below q. */
static inline void pacer_field_reduce(const pacer_field* f, uint64_t* r, const uint64_t* wide) {
  uint64_t t[8];
  memcpy(t, wide, sizeof t);
  uint64_t top = 0;
  for (int i = 0; i < 4; ++i) {
    const uint64_t m = t[i] * f->inv;
    pacer_u128 c = 0;
    for (int j = 0; j < 4; ++j) {
      c += (pacer_u128)m * f->q[j] + t[i + j];
      t[i + j] = (uint64_t)c;
      c >>= 64;
    }
    for (int k = i + 4; k < 8; ++k) {
      c += t[k];
      t[k] = (uint64_t)c;
      c >>= 64;
    }
    top += (uint64_t)c;
  }
  pacer_field_final(f, r, t + 4, top);
}

#endif
