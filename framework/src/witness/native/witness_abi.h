/* The C interface between Pacer and a witness generator compiled to a shared library (a circom
 * .wasm through wasm2c, or circom's --c output). Both glue files of this folder implement it, and
 * framework/src/witness/native_library.cpp calls it. Plain C, so that the library depends on no
 * C++ runtime detail of the host; every call returns a status and never lets an error escape.
 *
 * Field elements cross as n32 32-bit words, least significant first, in standard form. */
#ifndef PACER_WITNESS_ABI_H
#define PACER_WITNESS_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PACER_WG_ABI_VERSION 2u
#define PACER_WG_ENTRY "pacer_witness_generator_v2"
#define PACER_WG_ENTRY_V1 "pacer_witness_generator_v1" /* libraries of older Pacers, named when refused */
#define PACER_WG_MAX_WORDS 8u /* 256-bit fields at most */

/* What a call returned: ok, an error of the circuit or its input (an assert, an unknown signal),
 * or an error of the generator itself (a trap, no memory, a damaged data file). */
enum pacer_wg_status { PACER_WG_OK = 0, PACER_WG_CIRCUIT_ERROR = 1, PACER_WG_GENERATOR_ERROR = 2 };

typedef struct pacer_wg_instance pacer_wg_instance;

/* What the host's SIGSEGV handler needs to turn a fault in a generator's memory into a trap of
 * the running call: one record per thread, owned by the host. A generator fills it for the length
 * of each call (and puts back what it held before), and clears trap while host code runs inside
 * the call (a log callback). A fault at an address in [lo, hi) while trap is set calls trap, which
 * ends the call with an error and never returns; any other fault is not the generator's. */
typedef struct pacer_wg_fault_guard {
  uintptr_t lo, hi;   /* the address range reserved for the running call's memory; lo == hi: none */
  void (*trap)(void); /* null outside a generator's code */
} pacer_wg_fault_guard;

/* What the host gives a library, once, before any other call. */
typedef struct pacer_wg_host {
  uint32_t size;                               /* sizeof(pacer_wg_host): later fields go at the end */
  pacer_wg_fault_guard* (*thread_guard)(void); /* the calling thread's record */
} pacer_wg_host;

/* One line the circuit printed (circom's log()), without its newline. Must not throw or jump. */
typedef void (*pacer_wg_log_fn)(void* context, const char* line);

typedef struct pacer_wg_api {
  uint32_t abi_version; /* PACER_WG_ABI_VERSION */
  const char* kind;     /* "wasm2c" or "circom-cpp" */
  /* Called once, right after the library is loaded; `host` lives as long as the process. */
  void (*set_host)(const pacer_wg_host* host);

  /* A fresh instance with its own memory. data_dir: the folder of the library (the C++ generator
   * finds its .dat there). On failure: null, and a message in error[error_size]. */
  pacer_wg_instance* (*create)(const char* data_dir, char* error, size_t error_size);
  void (*destroy)(pacer_wg_instance*);
  void (*set_log)(pacer_wg_instance*, pacer_wg_log_fn fn, void* context);
  /* The message of the last call that did not return PACER_WG_OK. */
  const char* (*last_error)(const pacer_wg_instance*);

  uint32_t (*field_words)(const pacer_wg_instance*); /* n32, 1..PACER_WG_MAX_WORDS */
  void (*prime)(const pacer_wg_instance*, uint32_t* words);
  uint32_t (*witness_size)(const pacer_wg_instance*);
  uint32_t (*input_count)(const pacer_wg_instance*); /* field elements the inputs take in all */

  /* Starts a witness: forgets every input set before. */
  int (*begin)(pacer_wg_instance*);
  /* The number of field elements of the input signal whose name hashes (64-bit FNV-1a) to
   * `hash`, or -1 when the circuit has no such input. */
  int (*input_size)(pacer_wg_instance*, uint64_t hash, int64_t* size);
  /* Element `index` of that input signal; the circuit runs once the last input is set. */
  int (*set_input)(pacer_wg_instance*, uint64_t hash, uint32_t index, const uint32_t* words);
  /* Every witness value, witness_size * field_words words. */
  int (*witness)(pacer_wg_instance*, uint32_t* words);
} pacer_wg_api;

typedef const pacer_wg_api* (*pacer_wg_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* PACER_WITNESS_ABI_H */
