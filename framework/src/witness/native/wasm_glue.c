/* A circom witness generator (.wasm) translated by wasm2c, as a library with Pacer's witness
 * interface (witness_abi.h). Compiled as one unit with the translation, which it includes
 * (PACER_WASM2C_SOURCE), so the module's functions inline into the calls below.
 *
 * Two parts:
 *  - the runtime that wasm2c's output expects (the functions declared in wasm-rt.h), written for
 *    use inside a multi-threaded host: traps jump to a per-thread target; linear memory sits at
 *    the start of an 8 GiB reservation of address space, so that the translation needs no bounds
 *    checks (compiled with WASM_RT_MEMCHECK_SIGNAL_HANDLER=1): an access beyond the memory's
 *    current size hits a PROT_NONE page, and the host's SIGSEGV handler, which knows the running
 *    call's reservation from the thread's pacer_wg_fault_guard, calls memory_fault() below; nothing
 *    is shared between instances but the table of function types;
 *  - circom's wasm interface (the exports and "runtime" imports that snarkjs's witness calculator
 *    uses) behind witness_abi.h.
 *
 * Written for wasm2c 1.0.32 (the symbol names of its output: Z_<module>Z_<export>); the host
 * checks the version before it compiles this. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include PACER_WASM2C_SOURCE
#include "wasm_field.h"
#include "witness_abi.h"

#define EXPORT __attribute__((visibility("default")))
#define WASM_PAGE 65536u
/* wasm_rt_memory_t keeps its size in 32 bits: one page short of 4 GiB at most. */
#define MAX_PAGES 65535u
/* The address space reserved for a linear memory: every address a load or store can form (a u32
 * address plus a u32 static offset, plus the access's width of 16 bytes at most) lies inside. */
#define MEMORY_RESERVATION (((size_t)8 << 30) + WASM_PAGE)
/* Left unused at the low end of a thread's stack: room for the trap path and a log callback. */
#define STACK_RESERVE (512u << 10)

/* ---- an instance --------------------------------------------------------------------------- */

#define MESSAGE_LIMIT 4096u /* one message read from the module */
#define TEXT_LIMIT 8192u    /* the error text and a pending log line */

struct Z_runtime_instance_t {
  pacer_wg_instance* owner;
};

struct pacer_wg_instance {
  Z_circuit_instance_t module;
  struct Z_runtime_instance_t imports;
  bool instantiated;
  uint32_t n32, witness_size, input_count;
  uint32_t prime[PACER_WG_MAX_WORDS];
  uint32_t circuit_error; /* the code the module passed to exceptionHandler, 0 = none */
  char errors[TEXT_LIMIT]; /* messages the module printed before it failed */
  char line[TEXT_LIMIT];   /* log() output not yet ended by a newline */
  char last_error[TEXT_LIMIT + 256];
  pacer_wg_log_fn log;
  void* log_context;
  uintptr_t memory_lo, memory_hi; /* the reservation of the linear memory; 0, 0 before there is one */
  pacer_wg_fault_guard* guard;    /* the fault guard of the thread that runs the current call */
  pacer_field field;              /* native Fr_F1m_mul / Fr_F1m_mReduct (below) */
};

/* ---- per-thread state of the running call ------------------------------------------------- */

PACER_TLS uintptr_t pacer_wasm_stack_floor;
static PACER_TLS jmp_buf* trap_target;
static PACER_TLS const char* trap_reason; /* set by the runtime for traps it raises itself */
/* The instance whose call runs on this thread: where wasm_rt_allocate_memory records the
 * reservation it makes during instantiation. */
static PACER_TLS pacer_wg_instance* running_instance;

/* The host's hooks (set_host), given before any instance is made; the same pointer again when
 * the host loads the library once more while it is loaded (dlopen counts), maybe while another
 * thread reads it: hence atomic. */
static const pacer_wg_host* host;

__attribute__((noreturn)) static void jump_out(void) {
  if (!trap_target) abort(); /* a trap outside a guarded call: a bug of this file */
  longjmp(*trap_target, 1);
}

void pacer_wasm_stack_exhausted(void) {
  trap_reason = "call stack exhausted (a recursion too deep for the thread's stack)";
  jump_out();
}

/* The usable low end of this thread's stack, from the thread's attributes; failing those, 1 MiB
 * below where we stand now. */
static uintptr_t stack_floor(void) {
  uintptr_t here = (uintptr_t)__builtin_frame_address(0);
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* low = NULL;
    size_t size = 0;
    int ok = pthread_attr_getstack(&attr, &low, &size) == 0;
    pthread_attr_destroy(&attr);
    /* A small stack keeps a quarter of itself in reserve instead. */
    if (ok && (uintptr_t)low < here) return (uintptr_t)low + (size / 4 < STACK_RESERVE ? size / 4 : STACK_RESERVE);
  }
  return here > (1u << 20) ? here - (1u << 20) : 0;
}

/* ---- the wasm-rt.h runtime ------------------------------------------------------------------ */

void wasm_rt_init(void) {}
bool wasm_rt_is_initialized(void) { return true; }
void wasm_rt_free(void) {}

void wasm_rt_trap(wasm_rt_trap_t code) {
  if (!trap_reason) trap_reason = wasm_rt_strerror(code);
  jump_out();
}

const char* wasm_rt_strerror(wasm_rt_trap_t trap) {
  switch (trap) {
    case WASM_RT_TRAP_NONE: return "no error";
    case WASM_RT_TRAP_OOB: return "out-of-bounds access to memory or a table";
    case WASM_RT_TRAP_INT_OVERFLOW: return "integer overflow in a division or conversion";
    case WASM_RT_TRAP_DIV_BY_ZERO: return "integer division by zero";
    case WASM_RT_TRAP_INVALID_CONVERSION: return "conversion of NaN to an integer";
    case WASM_RT_TRAP_UNREACHABLE: return "unreachable code executed";
    case WASM_RT_TRAP_CALL_INDIRECT: return "indirect call of a wrong function type";
    case WASM_RT_TRAP_UNCAUGHT_EXCEPTION: return "uncaught wasm exception";
    case WASM_RT_TRAP_EXHAUSTION: return "call stack exhausted";
  }
  return "unknown trap";
}

/* Function types, shared by every instance: registered once, when the module is initialised
 * (under pthread_once below), and only read afterwards. */
typedef struct {
  uint32_t params, results;
  wasm_rt_type_t types[16];
  bool long_signature; /* more than 16 types: compared by count only is not enough, so kept apart */
} func_type_t;
static func_type_t* func_types_table;
static uint32_t func_types_count;

uint32_t wasm_rt_register_func_type(uint32_t params, uint32_t results, ...) {
  func_type_t t;
  memset(&t, 0, sizeof t);
  t.params = params;
  t.results = results;
  t.long_signature = params + results > 16;
  va_list args;
  va_start(args, results);
  for (uint32_t i = 0; i < params + results; ++i) {
    wasm_rt_type_t v = (wasm_rt_type_t)va_arg(args, int);
    if (i < 16) t.types[i] = v;
  }
  va_end(args);
  if (!t.long_signature)
    for (uint32_t i = 0; i < func_types_count; ++i)
      if (!func_types_table[i].long_signature && memcmp(&func_types_table[i], &t, sizeof t) == 0) return i + 1;
  func_type_t* grown = realloc(func_types_table, (func_types_count + 1) * sizeof *grown);
  if (!grown) abort(); /* only at library load, a few dozen bytes */
  func_types_table = grown;
  func_types_table[func_types_count++] = t;
  return func_types_count;
}

/* The table lives as long as the library: freed when it is unloaded (dlclose), so a process that
 * loads and unloads generators does not leak it. */
__attribute__((destructor)) static void free_func_types(void) {
  free(func_types_table);
  func_types_table = NULL;
  func_types_count = 0;
}

static void out_of_memory(void) {
  trap_reason = "out of memory for the generator's linear memory";
  jump_out();
}

/* Called by the host's SIGSEGV handler for a fault inside the running call's reservation, once it
 * has put back the signal mask of the interrupted code. Only async-signal-safe work: a store to
 * this thread's variables and a longjmp. */
static void memory_fault(void) {
  trap_reason = "out-of-bounds access to the generator's memory";
  jump_out();
}

/* The reservation, at a 2 MiB boundary and marked for transparent huge pages: a large circuit's
 * memory (circom sizes it for the whole witness: tens of MiB) then costs one page fault per 2 MiB
 * instead of per 4 KiB. Measured on a 305k-constraint circuit (2-core VM, THP "madvise"): those
 * faults were 15% of the witness time. Where THP is off, madvise fails and nothing changes. */
static uint8_t* reserve_memory(void) {
  const size_t huge = (size_t)2 << 20;
  uint8_t* base = mmap(NULL, MEMORY_RESERVATION + huge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return NULL;
  uint8_t* data = (uint8_t*)(((uintptr_t)base + huge - 1) & ~(uintptr_t)(huge - 1));
  if (data > base) munmap(base, (size_t)(data - base));
  munmap(data + MEMORY_RESERVATION, (size_t)(base + huge - data));
  madvise(data, MEMORY_RESERVATION, MADV_HUGEPAGE);
  return data;
}

/* Of the reservation [data, data + MEMORY_RESERVATION), the memory's pages are readable and
 * writable, the rest stays PROT_NONE. Called by instantiation, inside a guarded call, so
 * running_instance is the memory's owner. */
void wasm_rt_allocate_memory(wasm_rt_memory_t* memory, uint32_t initial_pages, uint32_t max_pages) {
  pacer_wg_instance* inst = running_instance;
  if (initial_pages > MAX_PAGES) out_of_memory();
  if (inst->memory_hi) {
    trap_reason = "a module with more than one memory"; /* wasm2c refuses those; the guard covers one */
    jump_out();
  }
  uint8_t* data = reserve_memory();
  if (!data) {
    trap_reason = "cannot reserve 8 GiB of address space for the generator's memory; is `ulimit -v` set?";
    jump_out();
  }
  if (initial_pages && mprotect(data, (size_t)initial_pages * WASM_PAGE, PROT_READ | PROT_WRITE) != 0) {
    munmap(data, MEMORY_RESERVATION);
    out_of_memory();
  }
  memory->data = data;
  memory->pages = initial_pages;
  memory->max_pages = max_pages > MAX_PAGES ? MAX_PAGES : max_pages;
  memory->size = initial_pages * WASM_PAGE;
  /* The running call (instantiation, which fills the memory next) is guarded from here on. */
  inst->memory_lo = (uintptr_t)data;
  inst->memory_hi = (uintptr_t)data + MEMORY_RESERVATION;
  inst->guard->lo = inst->memory_lo;
  inst->guard->hi = inst->memory_hi;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* The data never moves, and pages never touched are zero already. */
uint32_t wasm_rt_grow_memory(wasm_rt_memory_t* memory, uint32_t delta) {
  uint32_t old_pages = memory->pages;
  uint64_t new_pages = (uint64_t)old_pages + delta;
  if (new_pages > memory->max_pages) return UINT32_MAX;
  if (delta == 0) return old_pages;
  if (mprotect(memory->data + (size_t)old_pages * WASM_PAGE, (size_t)delta * WASM_PAGE, PROT_READ | PROT_WRITE) != 0)
    return UINT32_MAX; /* what memory.grow answers when it cannot */
  memory->pages = (uint32_t)new_pages;
  memory->size = (uint32_t)new_pages * WASM_PAGE;
  return old_pages;
}

void wasm_rt_free_memory(wasm_rt_memory_t* memory) {
  if (memory->data) munmap(memory->data, MEMORY_RESERVATION);
  memory->data = NULL;
  memory->size = memory->pages = 0;
}

#define TABLE_FUNCTIONS(kind, element)                                                          \
  void wasm_rt_allocate_##kind##_table(wasm_rt_##kind##_table_t* table, uint32_t elements,      \
                                       uint32_t max_elements) {                                 \
    table->data = calloc((size_t)elements + 1, sizeof(element));                                \
    if (!table->data) out_of_memory();                                                          \
    table->size = elements;                                                                     \
    table->max_size = max_elements;                                                             \
  }                                                                                             \
  void wasm_rt_free_##kind##_table(wasm_rt_##kind##_table_t* table) {                           \
    free(table->data);                                                                          \
    table->data = NULL;                                                                         \
    table->size = 0;                                                                            \
  }                                                                                             \
  uint32_t wasm_rt_grow_##kind##_table(wasm_rt_##kind##_table_t* table, uint32_t delta,         \
                                       element init) {                                          \
    uint32_t old_size = table->size;                                                            \
    uint64_t new_size = (uint64_t)old_size + delta;                                             \
    if (new_size > table->max_size) return UINT32_MAX;                                          \
    if (delta == 0) return old_size;                                                            \
    element* data = realloc(table->data, (size_t)new_size * sizeof(element));                   \
    if (!data) return UINT32_MAX;                                                               \
    for (uint64_t i = old_size; i < new_size; ++i) data[i] = init;                              \
    table->data = data;                                                                         \
    table->size = (uint32_t)new_size;                                                           \
    return old_size;                                                                            \
  }
TABLE_FUNCTIONS(funcref, wasm_rt_funcref_t)
TABLE_FUNCTIONS(externref, wasm_rt_externref_t)

/* Wasm exceptions: circom never throws one; a module that did traps. */
uint32_t wasm_rt_register_tag(uint32_t size) {
  (void)size;
  return 0;
}
void wasm_rt_load_exception(uint32_t tag, uint32_t size, const void* values) {
  (void)tag, (void)size, (void)values;
}
void wasm_rt_throw(void) { wasm_rt_trap(WASM_RT_TRAP_UNCAUGHT_EXCEPTION); }
WASM_RT_UNWIND_TARGET* wasm_rt_get_unwind_target(void) { return trap_target; }
void wasm_rt_set_unwind_target(WASM_RT_UNWIND_TARGET* target) { (void)target; }
uint32_t wasm_rt_exception_tag(void) { return 0; }
uint32_t wasm_rt_exception_size(void) { return 0; }
void* wasm_rt_exception(void) { return NULL; }

/* ---- circom's interface --------------------------------------------------------------------- */

static void append(char* text, const char* more) {
  size_t used = strlen(text), add = strlen(more);
  if (used + add + 1 > TEXT_LIMIT) add = used + 1 < TEXT_LIMIT ? TEXT_LIMIT - used - 1 : 0;
  memcpy(text + used, more, add);
  text[used + add] = 0;
}

/* The module's current message (getMessageChar until 0), cut at MESSAGE_LIMIT characters. */
static void read_message(pacer_wg_instance* inst, char* out) {
  size_t n = 0;
  for (;;) {
    uint32_t c = Z_circuitZ_getMessageChar(&inst->module);
    if (c == 0) break;
    if (n + 1 < MESSAGE_LIMIT) out[n++] = (char)c;
  }
  out[n] = 0;
}

/* Decimal digits of a little-endian number of n32 words. */
static void words_to_decimal(const uint32_t* words, uint32_t n32, char* out, size_t out_size) {
  uint32_t w[PACER_WG_MAX_WORDS];
  char reversed[100];
  size_t nd = 0;
  memcpy(w, words, n32 * sizeof *w);
  for (;;) {
    uint64_t rest = 0; /* w /= 10^9, rest = w mod 10^9 */
    bool more = false;
    for (uint32_t i = n32; i-- > 0;) {
      uint64_t cur = (rest << 32) | w[i];
      w[i] = (uint32_t)(cur / 1000000000u);
      rest = cur % 1000000000u;
      more |= w[i] != 0;
    }
    for (int k = 0; k < 9 && (more || rest != 0 || k == 0); ++k) { /* 9 digits but the leading ones */
      reversed[nd++] = (char)('0' + rest % 10);
      rest /= 10;
    }
    if (!more) break;
  }
  size_t n = 0;
  while (nd > 0 && n + 1 < out_size) out[n++] = reversed[--nd];
  out[n] = 0;
}

static void flush_line(pacer_wg_instance* inst) {
  if (inst->log) {
    /* Host code runs: a fault there is the host's, never a trap that would jump over its frames. */
    pacer_wg_fault_guard* guard = inst->guard;
    void (*trap)(void) = guard->trap;
    guard->trap = NULL;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    inst->log(inst->log_context, inst->line);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    guard->trap = trap;
  }
  inst->line[0] = 0;
}

static void add_to_line(pacer_wg_instance* inst, const char* piece) {
  if (inst->line[0]) append(inst->line, " ");
  append(inst->line, piece);
}

void Z_runtimeZ_exceptionHandler(struct Z_runtime_instance_t* rt, u32 code) {
  rt->owner->circuit_error = code ? code : UINT32_MAX;
  jump_out();
}

void Z_runtimeZ_printErrorMessage(struct Z_runtime_instance_t* rt) {
  char message[MESSAGE_LIMIT];
  read_message(rt->owner, message);
  if (rt->owner->errors[0]) append(rt->owner->errors, "; ");
  append(rt->owner->errors, message);
}

void Z_runtimeZ_writeBufferMessage(struct Z_runtime_instance_t* rt) {
  char message[MESSAGE_LIMIT];
  read_message(rt->owner, message);
  if (strcmp(message, "\n") == 0) flush_line(rt->owner);
  else add_to_line(rt->owner, message);
}

void Z_runtimeZ_showSharedRWMemory(struct Z_runtime_instance_t* rt) {
  pacer_wg_instance* inst = rt->owner;
  uint32_t words[PACER_WG_MAX_WORDS];
  char decimal[100];
  for (uint32_t j = 0; j < inst->n32; ++j) words[j] = Z_circuitZ_readSharedRWMemory(&inst->module, j);
  words_to_decimal(words, inst->n32, decimal, sizeof decimal);
  add_to_line(inst, decimal);
}

/* What circom's exceptionHandler codes mean (as snarkjs's witness calculator words them). */
static const char* circuit_error_text(uint32_t code) {
  switch (code) {
    case 1: return "signal not found";
    case 2: return "too many signals set";
    case 3: return "signal already set";
    case 4: return "assert failed";
    case 5: return "not enough memory";
    case 6: return "input signal array access exceeds the size";
    case 7: return "out of bounds array access";
  }
  return "unknown error";
}

/* Runs body(inst, arg) with traps caught: PACER_WG_OK, or an error status with last_error set.
 * For its length, the thread's fault guard names this instance's memory and memory_fault; what
 * the guard held before (an outer call's, through a log callback) is put back on every way out. */
typedef void (*guarded_body)(pacer_wg_instance*, void*);
static int guarded(pacer_wg_instance* inst, guarded_body body, void* arg) {
  jmp_buf target;
  jmp_buf* volatile outer = trap_target;
  pacer_wg_instance* volatile outer_instance = running_instance;
  pacer_wg_fault_guard* const guard = __atomic_load_n(&host, __ATOMIC_ACQUIRE)->thread_guard();
  pacer_wg_fault_guard* const outer_guard_of_inst = inst->guard;
  const pacer_wg_fault_guard outer_guard = *guard;
  trap_target = &target;
  trap_reason = NULL;
  running_instance = inst;
  inst->guard = guard;
  if (!pacer_wasm_stack_floor) pacer_wasm_stack_floor = stack_floor();
  inst->circuit_error = 0;
  inst->errors[0] = 0;
  guard->lo = inst->memory_lo;
  guard->hi = inst->memory_hi;
  guard->trap = memory_fault;
  __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the guard is in place before any access it covers */
  int status = PACER_WG_OK;
  if (setjmp(target) != 0) status = PACER_WG_GENERATOR_ERROR;
  else body(inst, arg);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  *guard = outer_guard;
  inst->guard = outer_guard_of_inst;
  running_instance = outer_instance;
  trap_target = outer;
  if (status == PACER_WG_OK) return PACER_WG_OK;
  if (inst->circuit_error) {
    snprintf(inst->last_error, sizeof inst->last_error, "%s%s%s", circuit_error_text(inst->circuit_error),
             inst->errors[0] ? ": " : "", inst->errors);
    return PACER_WG_CIRCUIT_ERROR;
  }
  snprintf(inst->last_error, sizeof inst->last_error, "the generator trapped: %s%s%s",
           trap_reason ? trap_reason : "unknown trap", inst->errors[0] ? "; it printed: " : "", inst->errors);
  return PACER_WG_GENERATOR_ERROR;
}

/* ---- native field arithmetic (wasm_field.h) ------------------------------------------------ */

/* The recipe renames the module's own Fr_F1m_mul / Fr_F1m_mReduct to pacer_module_* where it
 * found them with the signature below (PACER_NATIVE_F1M_MUL, PACER_NATIVE_F1M_MREDUCT); the
 * module's calls then reach these. Operands are read where the module's code would read them:
 * past the memory's size, the access faults into the reservation and traps, as the module's would. */
#if defined(PACER_NATIVE_F1M_MUL) || defined(PACER_NATIVE_F1M_MREDUCT)
static inline uint8_t* linear_memory(pacer_wg_instance* inst) { return Z_circuitZ_memory(&inst->module)->data; }

enum { NATIVE_MUL, NATIVE_REDUCE };
/* A native result of `fn` for address r: stored alone once fn's results are trusted (1); before
 * that (0) the module's code runs and agree() compares what it stored. */
static inline int stored_alone(pacer_wg_instance* inst, int fn, u32 r, const uint64_t* native) {
  if (inst->field.agreed[fn] < PACER_FIELD_CHECKS) return 0;
  memcpy(linear_memory(inst) + r, native, 32);
  return 1;
}
static void agree(pacer_wg_instance* inst, int fn, u32 r, const uint64_t* native) {
  if (memcmp(linear_memory(inst) + r, native, 32) == 0) ++inst->field.agreed[fn];
  else inst->field.state = -1; /* the module's code from now on */
}
#endif

#ifdef PACER_NATIVE_F1M_MUL
/* x*y/R into out, where the field is in use and both operands are below q (1); 0 otherwise. */
static inline int native_mul(pacer_wg_instance* inst, u32 x, u32 y, uint64_t* out) {
  if (inst->field.state <= 0) return 0;
  uint64_t a[4], b[4];
  memcpy(a, linear_memory(inst) + x, 32);
  memcpy(b, linear_memory(inst) + y, 32);
  if (!pacer_field_below_q(&inst->field, a) || !pacer_field_below_q(&inst->field, b)) return 0;
  pacer_field_mul(&inst->field, out, a, b);
  return 1;
}
static void pacer_module_Fr_F1m_mul(Z_circuit_instance_t*, u32, u32, u32);
static void w2c_Fr_F1m_mul(Z_circuit_instance_t* module, u32 x, u32 y, u32 r) {
  pacer_wg_instance* inst = (pacer_wg_instance*)module; /* module is its first member */
  uint64_t out[4];
  const int native = native_mul(inst, x, y, out);
  if (native && stored_alone(inst, NATIVE_MUL, r, out)) return;
  pacer_module_Fr_F1m_mul(module, x, y, r);
  if (native) agree(inst, NATIVE_MUL, r, out);
}
#endif

#ifdef PACER_NATIVE_F1M_MREDUCT
/* t/R into out for the 512-bit t, where the field is in use and t's high half is below q (1). */
static inline int native_reduce(pacer_wg_instance* inst, u32 t, uint64_t* out) {
  if (inst->field.state <= 0) return 0;
  uint64_t wide[8];
  memcpy(wide, linear_memory(inst) + t, 64);
  if (!pacer_field_below_q(&inst->field, wide + 4)) return 0;
  pacer_field_reduce(&inst->field, out, wide);
  return 1;
}
static void pacer_module_Fr_F1m_mReduct(Z_circuit_instance_t*, u32, u32);
static void w2c_Fr_F1m_mReduct(Z_circuit_instance_t* module, u32 t, u32 r) {
  pacer_wg_instance* inst = (pacer_wg_instance*)module;
  uint64_t out[4];
  const int native = native_reduce(inst, t, out);
  if (native && stored_alone(inst, NATIVE_REDUCE, r, out)) return;
  pacer_module_Fr_F1m_mReduct(module, t, r);
  if (native) agree(inst, NATIVE_REDUCE, r, out);
}
#endif

static pthread_once_t module_once = PTHREAD_ONCE_INIT;
static void init_module(void) { Z_circuit_init_module(); }

static void instantiate_body(pacer_wg_instance* inst, void* arg) {
  (void)arg;
  /* Set first: a trap halfway leaves buffers that Z_circuit_free releases (the instance was
   * zeroed, and freeing a null buffer does nothing). */
  inst->instantiated = true;
  Z_circuit_instantiate(&inst->module, &inst->imports);
  inst->n32 = Z_circuitZ_getFieldNumLen32(&inst->module);
  if (inst->n32 == 0 || inst->n32 > PACER_WG_MAX_WORDS) {
    trap_reason = "field elements wider than 256 bits";
    jump_out();
  }
  Z_circuitZ_getRawPrime(&inst->module);
  for (uint32_t j = 0; j < inst->n32; ++j) inst->prime[j] = Z_circuitZ_readSharedRWMemory(&inst->module, j);
  pacer_field_setup(&inst->field, inst->prime, inst->n32);
  inst->witness_size = Z_circuitZ_getWitnessSize(&inst->module);
  inst->input_count = Z_circuitZ_getInputSize(&inst->module);
}

static void destroy(pacer_wg_instance* inst) {
  if (!inst) return;
  if (inst->instantiated) Z_circuit_free(&inst->module);
  free(inst);
}

static void set_host(const pacer_wg_host* given) {
  if (given && given->size >= offsetof(pacer_wg_host, thread_guard) + sizeof given->thread_guard &&
      given->thread_guard && __atomic_load_n(&host, __ATOMIC_ACQUIRE) != given)
    __atomic_store_n(&host, given, __ATOMIC_RELEASE);
}

static pacer_wg_instance* create(const char* data_dir, char* error, size_t error_size) {
  (void)data_dir;
  /* Without the host's SIGSEGV handler, an access out of the memory would end the process. */
  if (!__atomic_load_n(&host, __ATOMIC_ACQUIRE)) {
    snprintf(error, error_size, "the host gave no fault guard (set_host) to the wasm2c generator");
    return NULL;
  }
  pthread_once(&module_once, init_module);
  pacer_wg_instance* inst = calloc(1, sizeof *inst);
  if (!inst) {
    snprintf(error, error_size, "out of memory for a generator instance");
    return NULL;
  }
  inst->imports.owner = inst;
  if (guarded(inst, instantiate_body, NULL) != PACER_WG_OK) {
    snprintf(error, error_size, "%s", inst->last_error);
    destroy(inst);
    return NULL;
  }
  return inst;
}

static void set_log(pacer_wg_instance* inst, pacer_wg_log_fn fn, void* context) {
  inst->log = fn;
  inst->log_context = context;
}
static const char* last_error(const pacer_wg_instance* inst) { return inst->last_error; }
static uint32_t field_words(const pacer_wg_instance* inst) { return inst->n32; }
static void prime(const pacer_wg_instance* inst, uint32_t* words) { memcpy(words, inst->prime, inst->n32 * 4u); }
static uint32_t witness_size(const pacer_wg_instance* inst) { return inst->witness_size; }
static uint32_t input_count(const pacer_wg_instance* inst) { return inst->input_count; }

static void begin_body(pacer_wg_instance* inst, void* arg) {
  (void)arg;
  inst->line[0] = 0;
  Z_circuitZ_init(&inst->module, 0);
}
static int begin(pacer_wg_instance* inst) { return guarded(inst, begin_body, NULL); }

struct input_call {
  uint64_t hash;
  uint32_t index;
  const uint32_t* words;
  int64_t size;
};

static void input_size_body(pacer_wg_instance* inst, void* arg) {
  struct input_call* call = arg;
  /* The module answers -1 (as a u32) for a name that is no input. */
  int32_t size = (int32_t)Z_circuitZ_getInputSignalSize(&inst->module, (u32)(call->hash >> 32), (u32)call->hash);
  call->size = size < 0 ? -1 : size;
}
static int input_size(pacer_wg_instance* inst, uint64_t hash, int64_t* size) {
  struct input_call call = {hash, 0, NULL, -1};
  int status = guarded(inst, input_size_body, &call);
  *size = call.size;
  return status;
}

static void set_input_body(pacer_wg_instance* inst, void* arg) {
  struct input_call* call = arg;
  for (uint32_t j = 0; j < inst->n32; ++j) Z_circuitZ_writeSharedRWMemory(&inst->module, j, call->words[j]);
  Z_circuitZ_setInputSignal(&inst->module, (u32)(call->hash >> 32), (u32)call->hash, call->index);
}
static int set_input(pacer_wg_instance* inst, uint64_t hash, uint32_t index, const uint32_t* words) {
  struct input_call call = {hash, index, words, 0};
  return guarded(inst, set_input_body, &call);
}

/* The n32 words of the module's shared read/write memory, where getWitness leaves a value. */
static const uint8_t* shared_words(pacer_wg_instance* inst) {
#ifdef PACER_WASM_SHARED_RW_START
  /* Read in place: one call per value instead of one per word. */
  const uint64_t start = Z_circuitZ_getSharedRWMemoryStart(&inst->module);
  const wasm_rt_memory_t* memory = Z_circuitZ_memory(&inst->module);
  if (start + (uint64_t)inst->n32 * 4 <= memory->size) return memory->data + start;
#endif
  static PACER_TLS uint32_t words[PACER_WG_MAX_WORDS];
  for (uint32_t j = 0; j < inst->n32; ++j) words[j] = Z_circuitZ_readSharedRWMemory(&inst->module, j);
  return (const uint8_t*)words;
}

static void witness_body(pacer_wg_instance* inst, void* arg) {
  uint32_t* out = arg;
  const uint32_t n32 = inst->n32;
  for (uint32_t i = 0; i < inst->witness_size; ++i) {
    Z_circuitZ_getWitness(&inst->module, i);
    memcpy(out + (size_t)i * n32, shared_words(inst), n32 * 4u); /* little-endian words, as wasm's memory */
  }
  if (inst->line[0]) flush_line(inst); /* a log() line the circuit left unterminated */
}
static int witness(pacer_wg_instance* inst, uint32_t* words) { return guarded(inst, witness_body, words); }

static const pacer_wg_api api = {
    PACER_WG_ABI_VERSION, "wasm2c", set_host, create, destroy, set_log, last_error, field_words, prime,
    witness_size, input_count, begin, input_size, set_input, witness,
};

EXPORT const pacer_wg_api* pacer_witness_generator_v2(void) { return &api; }
