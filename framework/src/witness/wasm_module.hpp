#pragma once
// Checks that a .wasm file is a circom 2 witness generator before anything compiles it: a
// WebAssembly binary (magic, version, section bounds), whose imports are only the "runtime"
// functions that Pacer's glue provides, with the types circom gives them, and whose exports
// include every function the glue calls.
#include <string>
#include <string_view>

namespace pacer::witness {

// Throws InputError naming `path`: truncated or damaged, not WebAssembly, or not a circom 2
// witness generator (which import or export is wrong or missing).
void check_circom_wasm(std::string_view bytes, const std::string& path);

}  // namespace pacer::witness
