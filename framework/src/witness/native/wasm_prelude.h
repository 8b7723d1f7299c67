/* Included (-include) before the wasm2c output of a circom .wasm. wasm2c's generated functions
 * count their depth in the global wasm_rt_call_stack_depth, which several threads would share.
 * Here the name becomes a call to an inline function over thread-local state, which also traps
 * when the native stack comes near its end: a runaway recursion in a circuit is an error, never a
 * crash of the process, whatever the stack size of the thread that runs it.
 *
 * wasm-rt.h later declares "extern uint32_t wasm_rt_call_stack_depth;", which this turns into a
 * harmless redeclaration of the function below. */
#ifndef PACER_WASM_PRELUDE_H
#define PACER_WASM_PRELUDE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_getattr_np in the glue: set before any system header */
#endif
#include <stdint.h>

#define PACER_TLS __thread __attribute__((tls_model("initial-exec")))

extern PACER_TLS uint32_t pacer_wasm_depth;
extern PACER_TLS uintptr_t pacer_wasm_stack_floor;
__attribute__((noreturn, cold)) void pacer_wasm_stack_exhausted(void);

static inline uint32_t* pacer_wasm_call_depth(void) {
  if (__builtin_expect((uintptr_t)__builtin_frame_address(0) < pacer_wasm_stack_floor, 0)) pacer_wasm_stack_exhausted();
  return &pacer_wasm_depth;
}

#define wasm_rt_call_stack_depth (*pacer_wasm_call_depth())

#endif
