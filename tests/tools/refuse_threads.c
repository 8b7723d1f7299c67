/* LD_PRELOAD shim for tests/integration/hostile_input.sh: pthread_create succeeds for the first
 * PACER_REFUSE_THREADS_AFTER calls of the process and then fails with EAGAIN, as it does at the
 * process or cgroup thread limit. Root ignores RLIMIT_NPROC and AddressSanitizer cannot start
 * under RLIMIT_AS, so the real limits do not reach the host's refusal in every test run; this
 * keeps the test hook out of the library. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef int (*create_fn)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

static atomic_long started;

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
  static create_fn next;
  if (!next) next = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
  if (!next) return EAGAIN;
  const char* limit_text = getenv("PACER_REFUSE_THREADS_AFTER");
  const long limit = limit_text && *limit_text ? strtol(limit_text, NULL, 10) : -1;
  if (limit >= 0 && atomic_fetch_add(&started, 1) >= limit) return EAGAIN;
  return next(thread, attr, start, arg);
}
