#pragma once
// The host's half of guard-page memory for wasm2c generators (native/wasm_glue.c): one SIGSEGV
// handler for the process, and per thread the record (pacer_wg_fault_guard) through which the
// generator running on that thread names its memory's reservation and its trap function. A fault
// inside that reservation ends the generator's call with a trap; every other fault goes on to the
// handler that was there before (a sanitizer's, or the default: the process dies with a core).
//
// The handler lives here, not in a generator library: libraries are unloaded (dlclose) while the
// process runs, and several would chain their handlers into each other.
#include "native/witness_abi.h"

namespace pacer::witness {

// Installs the handler once per process (the first call; later calls do nothing) and returns the
// hooks to give each library (set_host). Throws FailedError when the handler cannot be installed.
const pacer_wg_host& fault_guard_host();

}  // namespace pacer::witness
