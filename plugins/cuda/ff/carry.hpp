#pragma once
// Carry chains over 32-bit words. On the device each step is one PTX instruction using the
// carry flag (add.cc / addc, mad.lo.cc / madc.hi.cc, ...); on the host the same steps are
// emulated with an explicit carry, so the one Montgomery algorithm written against Chain runs,
// and is unit-tested, on a machine without a GPU. Plain C++ (no CUDA headers): g++ compiles it
// for the self-test.
#include <cstdint>

// Full unrolling of the limb loops: nvcc's pragma on the device, GCC's on the host (the host pass
// of nvcc rejects both, and g++ unrolls these short loops at -O3 anyway).
#if defined(__CUDA_ARCH__)
#define PACER_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define PACER_UNROLL
#else
#define PACER_UNROLL _Pragma("GCC unroll 16")
#endif

#if defined(__CUDACC__)
#define PACER_HD __host__ __device__ __forceinline__
#define PACER_HDC __host__ __device__ constexpr
// A call instead of inlining: for the big extension-field products, whose inlined bodies make
// the G2 kernels take many minutes to compile for little gain.
#define PACER_HD_NOINLINE __host__ __device__ __noinline__
#else
#define PACER_HD inline
#define PACER_HDC constexpr
#define PACER_HD_NOINLINE inline
#endif

namespace pacer::cuda::ff {

// Every step must belong to one chain in program order. Device steps are `asm volatile`, so the
// compiler keeps their relative order, and nothing between them touches the carry flag (no
// 128-bit arithmetic is ever mixed into a chain).
struct Chain {
#if defined(__CUDA_ARCH__)
  static __device__ __forceinline__ uint32_t mul_lo(uint32_t a, uint32_t b) { return a * b; }
  static __device__ __forceinline__ uint32_t mul_hi(uint32_t a, uint32_t b) { return __umulhi(a, b); }
  __device__ __forceinline__ uint32_t add_cc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
  }
  __device__ __forceinline__ uint32_t addc_cc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
  }
  __device__ __forceinline__ uint32_t addc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
  }
  __device__ __forceinline__ uint32_t sub_cc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
  }
  __device__ __forceinline__ uint32_t subc_cc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
  }
  __device__ __forceinline__ uint32_t subc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
  }
  __device__ __forceinline__ uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
  }
  __device__ __forceinline__ uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
  }
  __device__ __forceinline__ uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
  }
  __device__ __forceinline__ uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
  }
  __device__ __forceinline__ uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
  }
#else
  // Host emulation of the same instructions: cf is CC.CF (a carry for additions, a borrow for
  // subtractions, as PTX defines them).
  uint32_t cf = 0;
  uint32_t set(uint64_t wide) {
    cf = uint32_t(wide >> 32) & 1;
    return uint32_t(wide);
  }
  uint32_t add_cc(uint32_t a, uint32_t b) { return set(uint64_t(a) + b); }
  uint32_t addc_cc(uint32_t a, uint32_t b) { return set(uint64_t(a) + b + cf); }
  uint32_t addc(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) + b + cf); }
  uint32_t sub_cc(uint32_t a, uint32_t b) { return set(uint64_t(a) - b); }
  uint32_t subc_cc(uint32_t a, uint32_t b) { return set(uint64_t(a) - b - cf); }
  uint32_t subc(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) - b - cf); }
  static uint32_t lo(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) * b); }
  static uint32_t hi(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }
  static uint32_t mul_lo(uint32_t a, uint32_t b) { return lo(a, b); }
  static uint32_t mul_hi(uint32_t a, uint32_t b) { return hi(a, b); }
  uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return set(uint64_t(lo(a, b)) + c); }
  uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return set(uint64_t(lo(a, b)) + c + cf); }
  uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return set(uint64_t(hi(a, b)) + c); }
  uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return set(uint64_t(hi(a, b)) + c + cf); }
  uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return uint32_t(uint64_t(hi(a, b)) + c + cf); }
#endif
};

}  // namespace pacer::cuda::ff
