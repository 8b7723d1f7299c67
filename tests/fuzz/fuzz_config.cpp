// Fuzz target: the TOML config loader (limits, toml11, strict validation), then the plugins' side
// of it: typed reads of each params table and the unknown-key check, as a plugin factory does.
#include <string>

#include "fuzz_input.hpp"
#include "pacer/config.hpp"
#include "pacer/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const pacer::fuzz::MemFile file(data, size);
  try {
    const pacer::Config config = pacer::load_config(file.path());
    for (const auto* choice : {&config.backend, &config.allocator, &config.scheduler}) {
      try {
        (void)choice->params.get_int("threads", 0);
        (void)choice->params.get_double("ratio", 1.0);
        (void)choice->params.get_bool("prefault", false);
        (void)choice->params.get_string("mode", "");
        choice->params.reject_unknown();
      } catch (const pacer::InputError&) {
      }
    }
    (void)config.find_key("poseidon3-bn128");
    (void)pacer::release_policy_name(config.pipeline.release);
  } catch (const pacer::InputError&) {
  }
  return 0;
}
