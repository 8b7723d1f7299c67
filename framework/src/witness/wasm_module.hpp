#pragma once
// Checks that a .wasm file is a circom 2 witness generator before anything compiles it: a
// WebAssembly binary (magic, version, section bounds), whose imports are only the "runtime"
// functions that Pacer's glue provides, with the types circom gives them, and whose exports
// include every function the glue calls.
#include <string>
#include <string_view>

namespace pacer::witness {

// What the glue may use beyond the required exports.
struct CircomWasm {
  bool shared_rw_start = false;  // exports getSharedRWMemoryStart and its memory: values read in place
};

// Throws InputError naming `path`: truncated or damaged, not WebAssembly, or not a circom 2
// witness generator (which import or export is wrong or missing).
CircomWasm check_circom_wasm(std::string_view bytes, const std::string& path);

}  // namespace pacer::witness
