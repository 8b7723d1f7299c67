/* Pacer's C plugin ABI (docs/plugins.md): what crosses the boundary between the host and an
 * allocator or scheduler plugin. Plain C99 and nothing else (no C++ type, no toml11, no spdlog), so
 * that a plugin built by another compiler or standard library, or written in C, is well defined.
 *
 * A plugin exports one function, pacer_plugin_entry, that returns a descriptor: the ABI version it
 * was built against, its kind, name, version and summary, and a table of function pointers for its
 * kind. Objects are opaque handles; errors are a code plus a message written into a buffer the
 * caller owns; params are a read-only key/value view; logging, time and the host's allocator are
 * function pointers the host lends (pacer_host).
 *
 * Versions: a new major breaks old plugins (the host refuses them, naming both versions); a new
 * minor only appends fields to the end of structs. Every struct starts with struct_size, set by
 * whoever fills it, so either side can tell which fields the other one knows.
 * Exceptions, longjmp and the like never cross the boundary in either direction. */
#ifndef PACER_PLUGIN_ABI_H
#define PACER_PLUGIN_ABI_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PACER_PLUGIN_ABI_MAJOR 1
#define PACER_PLUGIN_ABI_MINOR 0

#ifdef __cplusplus
#define PACER_ABI_EXTERN_C extern "C"
#define PACER_ABI_NOEXCEPT noexcept
extern "C" {
#else
#define PACER_ABI_EXTERN_C
#define PACER_ABI_NOEXCEPT
#endif

#define PACER_PLUGIN_EXPORT PACER_ABI_EXTERN_C __attribute__((visibility("default")))

/* True when a struct filled by the other side holds `field`: a field appended by a later minor is
 * read only after this check. */
#define PACER_ABI_HAS(ptr, type, field) \
  ((ptr)->struct_size >= offsetof(type, field) + sizeof(((const type*)0)->field))

/* ---- errors ------------------------------------------------------------------------------- */

enum {
  PACER_OK = 0,
  PACER_ERR_INPUT = 1,  /* the user can fix it (config, params): the host exits 2 */
  PACER_ERR_FAILED = 2, /* a failure at run time (out of memory, a system call): exit 1 */
  PACER_PAUSED = 3      /* not an error: scheduler checkpoint kept its resume callback */
};

/* The caller owns the buffer; the callee writes one line, NUL-terminated, cut to fit. */
typedef struct pacer_error {
  uint32_t struct_size;
  int32_t code;
  char* message;
  size_t message_size;
} pacer_error;

/* Sets code and message; returns code, so `return pacer_error_set(err, ...)` reads naturally. */
static inline int pacer_error_set(pacer_error* err, int code, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static inline int pacer_error_set(pacer_error* err, int code, const char* format, ...) {
  if (err) {
    err->code = code;
    if (err->message && err->message_size > 0) {
      va_list args;
      va_start(args, format);
      vsnprintf(err->message, err->message_size, format, args);
      va_end(args);
    }
  }
  return code;
}

/* ---- params: a read-only view of the plugin's [<kind>.params] table ------------------------- */

/* Every getter records the key as known; once create returns, the host refuses any key of the
 * table that nothing asked for, naming it and its line. A value of the wrong type is
 * PACER_ERR_INPUT with the host's message (file, line, key) in err: return that code from create.
 * Strings stay valid until create returns. */
typedef struct pacer_params {
  uint32_t struct_size;
  void* ctx;
  const char* where; /* the table's name for messages, e.g. "[allocator.params]" */
  int (*has)(void* ctx, const char* key);
  int (*get_int)(void* ctx, const char* key, int64_t def, int64_t* out, pacer_error* err);
  int (*get_double)(void* ctx, const char* key, double def, double* out, pacer_error* err);
  int (*get_bool)(void* ctx, const char* key, int def, int* out, pacer_error* err);
  int (*get_string)(void* ctx, const char* key, const char* def, const char** out, pacer_error* err);
  /* A value that has the right type but is not acceptable: writes "<file>:<line>: <where> <key>
   * <what>" into err and returns PACER_ERR_INPUT. */
  int (*invalid)(void* ctx, const char* key, const char* what, pacer_error* err);
} pacer_params;

/* ---- allocator values (pacer/allocator.hpp) ------------------------------------------------ */

enum {
  PACER_USAGE_WITNESS = 0,
  PACER_USAGE_ABC = 1,
  PACER_USAGE_SCRATCH = 2,
  PACER_USAGE_BUCKETS = 3,
  PACER_USAGE_DIGITS = 4,
  PACER_USAGE_GLV_IMAGES = 5,
  PACER_USAGE_NTT = 6,
  PACER_USAGE_KEY_POINTS = 7,
  PACER_USAGE_STAGING = 8 /* a later minor may add usages: treat an unknown one as scratch */
};

enum { PACER_RELEASE_IMMEDIATE = 0, PACER_RELEASE_BOUNDED = 1 };

typedef struct pacer_alloc_hints {
  uint32_t struct_size;
  uint32_t usage;    /* PACER_USAGE_* */
  uint32_t prefault; /* nonzero: touch every page now */
  size_t align;      /* a power of two, at least alignof(max_align_t) */
} pacer_alloc_hints;

/* What was really granted. deallocate gets the same block back, cookie included. */
typedef struct pacer_block {
  uint32_t struct_size;
  uint32_t pinned; /* nonzero: page-locked for DMA */
  void* data;
  size_t bytes;      /* usable bytes, at least what was asked */
  size_t page_bytes; /* page size behind the block */
  void* cookie;      /* the allocator's own */
} pacer_block;

/* Filled by the allocator; the host zeroes it and sets struct_size first. Counters an allocator
 * cannot measure stay 0 (their meaning: pacer/allocator.hpp, AllocStats). */
typedef struct pacer_alloc_stats {
  uint32_t struct_size;
  uint64_t live_bytes, peak_bytes, allocations, hugepage_bytes, page_faults, fresh_bytes, reused_bytes,
      cached_bytes, released_bytes, unmaps, fallbacks;
} pacer_alloc_stats;

/* ---- scheduler values (pacer/stages.hpp) --------------------------------------------------- */

enum {
  PACER_STAGE_WITNESS = 0,
  PACER_STAGE_LOAD = 1,
  PACER_STAGE_SYNTHESIZE = 2,
  PACER_STAGE_COMPUTE_H = 3,
  PACER_STAGE_MSM_G1 = 4,
  PACER_STAGE_MSM_G2 = 5,
  PACER_STAGE_ASSEMBLE = 6,
  PACER_STAGE_RELEASE = 7
};
enum { PACER_CLASS_IO = 0, PACER_CLASS_MEMBW = 1, PACER_CLASS_COMPUTE = 2, PACER_CLASS_CPU = 3, PACER_CLASS_DEVICE = 4 };

typedef struct pacer_stage_ticket {
  uint32_t struct_size;
  uint32_t stage; /* PACER_STAGE_* */
  uint64_t job;
  uint32_t cls;     /* PACER_CLASS_* */
  int32_t priority; /* higher runs first when the scheduler has a choice */
  uint64_t bytes;   /* declared bytes the stage streams through DRAM */
  uint32_t part;    /* which task of a stage with several (msm_g1: the basis), else 0 */
} pacer_stage_ticket;

/* Times are nanoseconds of the host's monotonic clock (pacer_host.now_ns). */
typedef struct pacer_stage_stats {
  uint32_t struct_size;
  uint32_t failed; /* nonzero: the stage threw, or its proof had failed before it ran */
  int64_t started_ns, ended_ns;
  int64_t queued_ns, paused_ns, run_ns;
  uint64_t bytes, minor_faults;
} pacer_stage_stats;

/* A callback and its context: called exactly once, from any thread. */
typedef void (*pacer_callback)(void* ctx);

/* ---- what the host lends a plugin ---------------------------------------------------------- */

enum { PACER_LOG_TRACE = 0, PACER_LOG_DEBUG = 1, PACER_LOG_INFO = 2, PACER_LOG_WARN = 3, PACER_LOG_ERROR = 4 };

/* The host's allocator as a plugin sees it (the configured [allocator], or [staging]). */
typedef struct pacer_host_allocator {
  uint32_t struct_size;
  void* ctx;
  int (*allocate)(void* ctx, size_t bytes, const pacer_alloc_hints* hints, pacer_block* out, pacer_error* err);
  void (*deallocate)(void* ctx, const pacer_block* block);
  int (*stats)(void* ctx, pacer_alloc_stats* out, pacer_error* err);
} pacer_host_allocator;

/* Valid from create until destroy returns. Every function may be called from any thread. */
typedef struct pacer_host {
  uint32_t struct_size;
  void* ctx; /* first argument of every function below */
  void (*log)(void* ctx, int level, const char* message);
  int (*log_enabled)(void* ctx, int level); /* skip formatting a line nobody reads */
  /* Monotonic time in nanoseconds, and a timer: fn(fn_ctx) runs once, at or after when_ns, on
   * another call stack (never inside call_at). Timers still pending when the host shuts down are
   * dropped uncalled, after every proof has drained. Both NULL where a host lends no clock (`pacer`
   * always lends one). */
  int64_t (*now_ns)(void* ctx);
  void (*call_at)(void* ctx, int64_t when_ns, pacer_callback fn, void* fn_ctx);
  const pacer_host_allocator* allocator; /* NULL while the allocator itself is being made */
  const pacer_host_allocator* staging;   /* device copies' buffers; the same as allocator if none */
  uint32_t release;                      /* PACER_RELEASE_*: [pipeline] release, for allocators that unmap */
} pacer_host;

/* printf-style logging through the host; lines longer than 1 KiB are cut. */
static inline void pacer_log(const pacer_host* host, int level, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static inline void pacer_log(const pacer_host* host, int level, const char* format, ...) {
  char line[1024];
  va_list args;
  if (!host || !host->log || (host->log_enabled && !host->log_enabled(host->ctx, level))) return;
  va_start(args, format);
  vsnprintf(line, sizeof line, format, args);
  va_end(args);
  host->log(host->ctx, level, line);
}

/* ---- the kinds' tables --------------------------------------------------------------------- */

/* Opaque: each plugin defines these structs as it likes; the host only passes the pointers back. */
typedef struct pacer_allocator pacer_allocator;
typedef struct pacer_scheduler pacer_scheduler;

/* Every function but create/destroy may be called from many threads at once. Functions that take a
 * pacer_error return PACER_OK or an error code with err filled. */
typedef struct pacer_allocator_api {
  uint32_t struct_size;
  /* params and host as above; on success *out is the new object. */
  int (*create)(const pacer_params* params, const pacer_host* host, pacer_allocator** out, pacer_error* err);
  /* Never succeeds with a NULL block. Memory need not be zeroed. out->struct_size is the host's. */
  int (*allocate)(pacer_allocator* self, size_t bytes, const pacer_alloc_hints* hints, pacer_block* out,
                  pacer_error* err);
  void (*deallocate)(pacer_allocator* self, const pacer_block* block); /* cannot fail */
  int (*stats)(pacer_allocator* self, pacer_alloc_stats* out, pacer_error* err);
  void (*destroy)(pacer_allocator* self); /* after every block has come back */
} pacer_allocator_api;

/* Callbacks, no thread of its own (pacer/scheduler.hpp). Call start and resume outside your own
 * locks: they may run the stage's next step at once. */
typedef struct pacer_scheduler_api {
  uint32_t struct_size;
  int (*create)(const pacer_params* params, const pacer_host* host, pacer_scheduler** out, pacer_error* err);
  /* Admission: call start(start_ctx) exactly once when the stage may run, inline or later. On an
   * error return start must never be called: the host frees start_ctx. */
  int (*admit)(pacer_scheduler* self, const pacer_stage_ticket* ticket, pacer_callback start, void* start_ctx,
               pacer_error* err);
  /* Between chunks of a running stage. PACER_OK: go on now (resume is never called, the host frees
   * resume_ctx). PACER_PAUSED: the scheduler keeps resume and calls it exactly once, later, never
   * from inside this call (it may run on another thread before this call returns). An error fails
   * the stage; resume is never called. */
  int (*checkpoint)(pacer_scheduler* self, const pacer_stage_ticket* ticket, pacer_callback resume, void* resume_ctx,
                    pacer_error* err);
  /* Feedback: exactly once per admitted ticket, also when its proof failed. An error fails the proof. */
  int (*finished)(pacer_scheduler* self, const pacer_stage_ticket* ticket, const pacer_stage_stats* stats,
                  pacer_error* err);
  void (*destroy)(pacer_scheduler* self); /* after every admitted ticket has finished */
} pacer_scheduler_api;

/* ---- the entry point ----------------------------------------------------------------------- */

enum { PACER_KIND_BACKEND = 0, PACER_KIND_ALLOCATOR = 1, PACER_KIND_SCHEDULER = 2 };

/* struct_size, abi_major and abi_minor come first in every version, forever. */
typedef struct pacer_plugin_descriptor {
  uint32_t struct_size;
  uint32_t abi_major; /* PACER_PLUGIN_ABI_MAJOR the plugin was built with */
  uint32_t abi_minor;
  uint32_t kind;       /* PACER_KIND_*: backends still use the C++ interface (pacer/plugin.hpp) */
  const char* name;    /* what the config names, unique per kind */
  const char* version; /* the plugin's own */
  const char* summary; /* one line */
  const void* api;     /* const pacer_allocator_api* or const pacer_scheduler_api*, static */
} pacer_plugin_descriptor;

#define PACER_PLUGIN_ENTRY_SYMBOL "pacer_plugin_entry"
typedef const pacer_plugin_descriptor* (*pacer_plugin_entry_fn)(void);

/* Exports the entry point, and the kind and name as data that the host reads from the file before
 * loading it (so a library is loaded only when a config names it). Use once per library, at file
 * scope: PACER_PLUGIN_DEFINE(allocator, "mine", "1.0.0", "what it does", &my_allocator_api)
 * KIND is backend, allocator or scheduler, lower case. */
#define PACER_KIND_ID_backend PACER_KIND_BACKEND
#define PACER_KIND_ID_allocator PACER_KIND_ALLOCATOR
#define PACER_KIND_ID_scheduler PACER_KIND_SCHEDULER
#define PACER_PLUGIN_DEFINE(KIND, NAME, VERSION, SUMMARY, API)                                           \
  PACER_PLUGIN_EXPORT const char pacer_plugin_kind_##KIND = 1;                                           \
  PACER_PLUGIN_EXPORT const char pacer_plugin_name[] = NAME;                                             \
  PACER_PLUGIN_EXPORT const pacer_plugin_descriptor* pacer_plugin_entry(void) PACER_ABI_NOEXCEPT {       \
    static const pacer_plugin_descriptor descriptor = {sizeof(pacer_plugin_descriptor),                  \
                                                       PACER_PLUGIN_ABI_MAJOR,                           \
                                                       PACER_PLUGIN_ABI_MINOR,                           \
                                                       PACER_KIND_ID_##KIND,                             \
                                                       NAME,                                             \
                                                       VERSION,                                          \
                                                       SUMMARY,                                          \
                                                       API};                                             \
    return &descriptor;                                                                                  \
  }

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PACER_PLUGIN_ABI_H */
