/* Included (-include) before the wasm2c output of a circom .wasm. wasm2c's generated functions
 * count their depth in the global wasm_rt_call_stack_depth ("++depth > MAX" on entry, "--depth"
 * on return), which several threads would share. Here each use of that name becomes a fresh
 * zero (a compound literal, which the compiler removes) whose making checks the native stack
 * against the running thread's own bounds: a runaway recursion in a circuit traps, never crashes
 * the process, whatever the stack size of the thread that runs it, and no counter is shared.
 *
 * wasm-rt.h is included first, so that its "extern uint32_t wasm_rt_call_stack_depth;" keeps its
 * real name (never defined, never used); the macro below only rewrites the generated functions. */
#ifndef PACER_WASM_PRELUDE_H
#define PACER_WASM_PRELUDE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_getattr_np in the glue: set before any system header */
#endif
#include <stdint.h>

#include "wasm-rt.h"

#define PACER_TLS __thread __attribute__((tls_model("initial-exec")))

extern PACER_TLS uintptr_t pacer_wasm_stack_floor;
__attribute__((noreturn, cold)) void pacer_wasm_stack_exhausted(void);

static inline __attribute__((always_inline)) uint32_t pacer_wasm_stack_check(void) {
  uintptr_t sp;
#if defined(__x86_64__)
  __asm__("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
  __asm__("mov %0, sp" : "=r"(sp));
#else
  sp = (uintptr_t)__builtin_frame_address(0);
#endif
  if (__builtin_expect(sp < pacer_wasm_stack_floor, 0)) pacer_wasm_stack_exhausted();
  return 0;
}

#define wasm_rt_call_stack_depth (*(uint32_t[1]){pacer_wasm_stack_check()})

#endif
