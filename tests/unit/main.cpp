// The Catch2 main of the unit-test and the allocator-test binaries (the object library pacer_catch_main).
#define CATCH_CONFIG_MAIN
// Catch2 installs its own SIGSEGV handler around every test case and at its end puts back the one
// it found, which removes the handler that witness generators install once per process
// (framework/src/witness/fault_guard.cpp) if the first generator was loaded inside an earlier test
// case. ctest runs each test case in a process of its own, which still names the one that crashed.
#define CATCH_CONFIG_NO_POSIX_SIGNALS
#include <catch2/catch.hpp>

#if defined(__SANITIZE_ADDRESS__)
// Tests ask for impossible sizes (2^62 bytes) to check that an allocator's failure comes back as an
// error; ASan's default is to abort on them instead of failing the call as malloc does. ASAN_OPTIONS
// still overrides this.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif
