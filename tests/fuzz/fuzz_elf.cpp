// Fuzz target: the ELF reader the plugin loader runs on every lib*.so of the plugin path before it
// loads one (pacer/elf_exports.hpp): every offset and size it reads is checked against the file.
#include <cstdint>

#include "fuzz_input.hpp"
#include "pacer/elf_exports.hpp"
#include "pacer/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const pacer::fuzz::MemFile file(data, size);
  try {
    (void)pacer::elf_exports_among(file.path(),
                                   {"pacer_plugin_info", "pacer_plugin_create", "pacer_plugin_kind_backend"});
  } catch (const pacer::InputError&) {
  }
  try {
    (void)pacer::elf_exported_bytes(file.path(), "pacer_plugin_name", 65);  // the name, read before loading
  } catch (const pacer::InputError&) {
  }
  return 0;
}
