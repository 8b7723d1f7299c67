/* Found before the system's <assert.h> when circom's C++ generator is compiled into a library
 * (and <cassert> includes it): a failed assert throws to circom_glue.cpp, which turns it into an
 * error of the witness call, instead of aborting the process. NDEBUG does not remove it: circom's
 * generated code checks circuit asserts and constraints with assert(). */
#undef assert
#ifdef __cplusplus
[[noreturn]] void pacer_circom_assert_failed(const char* expression, const char* file, int line);
#define assert(expression) \
  (static_cast<bool>(expression) ? void(0) : pacer_circom_assert_failed(#expression, __FILE__, __LINE__))
#else
#include_next <assert.h> /* C (the wasm2c build, which has this folder on its path too) */
#endif
