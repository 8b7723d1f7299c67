#pragma once
// 16-byte global loads and stores of field elements and points (every element size here is a
// multiple of 16 bytes, and every array starts 256-byte aligned from cudaMalloc).
#include <cuda_runtime.h>

#include "ec/xyzz.hpp"
#include "ff/fp.hpp"
#include "ff/fp2.hpp"

namespace pacer::cuda {

template <class P>
__device__ __forceinline__ ff::fp_t<P> ld_ro(const ff::fp_t<P>* p) {  // read-only in this kernel
  static_assert(P::n % 4 == 0, "16-byte words");
  ff::fp_t<P> r;
  const uint4* s = reinterpret_cast<const uint4*>(p->l);
PACER_UNROLL
  for (int i = 0; i < P::n / 4; ++i) {
    const uint4 v = __ldg(s + i);
    r.l[4 * i] = v.x;
    r.l[4 * i + 1] = v.y;
    r.l[4 * i + 2] = v.z;
    r.l[4 * i + 3] = v.w;
  }
  return r;
}
template <class P>
__device__ __forceinline__ ff::fp_t<P> ld(const ff::fp_t<P>* p) {  // may have been written in this kernel
  ff::fp_t<P> r;
  const uint4* s = reinterpret_cast<const uint4*>(p->l);
PACER_UNROLL
  for (int i = 0; i < P::n / 4; ++i) {
    const uint4 v = s[i];
    r.l[4 * i] = v.x;
    r.l[4 * i + 1] = v.y;
    r.l[4 * i + 2] = v.z;
    r.l[4 * i + 3] = v.w;
  }
  return r;
}
template <class P>
__device__ __forceinline__ void st(ff::fp_t<P>* p, const ff::fp_t<P>& x) {
  uint4* d = reinterpret_cast<uint4*>(p->l);
PACER_UNROLL
  for (int i = 0; i < P::n / 4; ++i) d[i] = make_uint4(x.l[4 * i], x.l[4 * i + 1], x.l[4 * i + 2], x.l[4 * i + 3]);
}

template <class F>
__device__ __forceinline__ ff::fp2_t<F> ld_ro(const ff::fp2_t<F>* p) {
  return {ld_ro(&p->c0), ld_ro(&p->c1)};
}
template <class F>
__device__ __forceinline__ ff::fp2_t<F> ld(const ff::fp2_t<F>* p) {
  return {ld(&p->c0), ld(&p->c1)};
}
template <class F>
__device__ __forceinline__ void st(ff::fp2_t<F>* p, const ff::fp2_t<F>& x) {
  st(&p->c0, x.c0);
  st(&p->c1, x.c1);
}

template <class F>
__device__ __forceinline__ ec::affine_t<F> ld_ro(const ec::affine_t<F>* p) {
  return {ld_ro(&p->x), ld_ro(&p->y)};
}
template <class F>
__device__ __forceinline__ ec::xyzz_t<F> ld_ro(const ec::xyzz_t<F>* p) {
  return {ld_ro(&p->X), ld_ro(&p->Y), ld_ro(&p->ZZ), ld_ro(&p->ZZZ)};
}
template <class F>
__device__ __forceinline__ ec::xyzz_t<F> ld(const ec::xyzz_t<F>* p) {
  return {ld(&p->X), ld(&p->Y), ld(&p->ZZ), ld(&p->ZZZ)};
}
template <class F>
__device__ __forceinline__ void st(ec::xyzz_t<F>* p, const ec::xyzz_t<F>& x) {
  st(&p->X, x.X);
  st(&p->Y, x.Y);
  st(&p->ZZ, x.ZZ);
  st(&p->ZZZ, x.ZZZ);
}

}  // namespace pacer::cuda
