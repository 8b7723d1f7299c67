/* An out-of-tree allocator plugin in plain C, "c_counting": posix_memalign underneath, and it
 * counts what it hands out. It needs one header, pacer/plugin_abi.h, and no Pacer library: any C
 * compiler builds it (C11, for <stdatomic.h>; the header itself is C99), e.g.
 *   cc -std=c11 -O2 -shared -fPIC -fvisibility=hidden -I<pacer prefix>/include \
 *      -o libpacer_c_counting_allocator.so c_counting_allocator.c
 * then select it in a config: [allocator] plugin = "c_counting".
 *
 * params:
 *   log_every (integer, default 0)  log a line every N allocations (0 = never)
 *   prefault  (bool, default false) touch every page of every block, as if hints asked for it */
#define _POSIX_C_SOURCE 200112L
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <pacer/plugin_abi.h>

enum { PAGE_BYTES = 4096 };

/* The opaque handle the host holds: ours to define. */
struct pacer_allocator {
  const pacer_host* host; /* valid until destroy */
  int64_t log_every;
  int prefault;
  atomic_uint_fast64_t live, peak, allocations;
};

static int c_create(const pacer_params* params, const pacer_host* host, pacer_allocator** out, pacer_error* err) {
  int64_t log_every = 0;
  int prefault = 0;
  int rc;
  /* Every key is read through the host, which rejects the ones nobody read. */
  if ((rc = params->get_int(params->ctx, "log_every", 0, &log_every, err)) != PACER_OK) return rc;
  if ((rc = params->get_bool(params->ctx, "prefault", 0, &prefault, err)) != PACER_OK) return rc;
  if (log_every < 0) return params->invalid(params->ctx, "log_every", "must be >= 0", err);

  pacer_allocator* self = calloc(1, sizeof *self);
  if (!self) return pacer_error_set(err, PACER_ERR_FAILED, "c_counting allocator: out of memory");
  self->host = host;
  self->log_every = log_every;
  self->prefault = prefault;
  atomic_init(&self->live, 0);
  atomic_init(&self->peak, 0);
  atomic_init(&self->allocations, 0);
  pacer_log(host, PACER_LOG_DEBUG, "c_counting allocator: log_every %lld, prefault %d", (long long)log_every, prefault);
  *out = self;
  return PACER_OK;
}

static int c_allocate(pacer_allocator* self, size_t bytes, const pacer_alloc_hints* hints, pacer_block* out,
                      pacer_error* err) {
  size_t align = hints->align < sizeof(void*) ? sizeof(void*) : hints->align;
  size_t rounded = ((bytes ? bytes : 1) + align - 1) / align * align;
  void* p = NULL;
  if (rounded < bytes || posix_memalign(&p, align, rounded) != 0)
    return pacer_error_set(err, PACER_ERR_FAILED, "c_counting allocator: out of memory allocating %zu bytes", bytes);
  if (hints->prefault || self->prefault)
    for (size_t off = 0; off < rounded; off += PAGE_BYTES) ((volatile char*)p)[off] = 0;

  uint_fast64_t live = atomic_fetch_add(&self->live, rounded) + rounded;
  uint_fast64_t peak = atomic_load(&self->peak);
  while (live > peak && !atomic_compare_exchange_weak(&self->peak, &peak, live)) {
  }
  uint_fast64_t n = atomic_fetch_add(&self->allocations, 1) + 1;
  if (self->log_every > 0 && n % (uint_fast64_t)self->log_every == 0)
    pacer_log(self->host, PACER_LOG_INFO, "c_counting allocator: %llu allocations, %llu bytes live",
              (unsigned long long)n, (unsigned long long)live);

  /* Fields of ABI 1.0, which every 1.x host has; a later minor's field would be written only after
   * PACER_ABI_HAS(out, pacer_block, field). */
  out->pinned = 0;
  out->data = p;
  out->bytes = rounded;
  out->page_bytes = PAGE_BYTES;
  out->cookie = NULL;
  return PACER_OK;
}

static void c_deallocate(pacer_allocator* self, const pacer_block* block) {
  if (!block->data) return;
  free(block->data);
  atomic_fetch_sub(&self->live, block->bytes);
}

static int c_stats(pacer_allocator* self, pacer_alloc_stats* out, pacer_error* err) {
  (void)err;
  /* The host zeroed *out: counters this allocator cannot measure stay 0. */
  out->live_bytes = atomic_load(&self->live);
  out->peak_bytes = atomic_load(&self->peak);
  out->allocations = atomic_load(&self->allocations);
  return PACER_OK;
}

static void c_destroy(pacer_allocator* self) {
  pacer_log(self->host, PACER_LOG_DEBUG, "c_counting allocator: %llu allocations, peak %llu bytes",
            (unsigned long long)atomic_load(&self->allocations), (unsigned long long)atomic_load(&self->peak));
  free(self);
}

static const pacer_allocator_api api = {sizeof(pacer_allocator_api), c_create, c_allocate, c_deallocate, c_stats,
                                        c_destroy};

PACER_PLUGIN_DEFINE(allocator, "c_counting", "1.0.0", "example out-of-tree allocator in C: posix_memalign, counted",
                    &api)
