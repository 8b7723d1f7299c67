// Test plugins: schedulers whose factory throws, one with an InputError (bad params: exit 2) and
// one with a plain std::runtime_error (exit 1); the host must report plugin, file and message.
#include <stdexcept>

#include "pacer/error.hpp"
#include "pacer/plugin.hpp"

namespace {
std::unique_ptr<pacer::Scheduler> make_throwing(const pacer::Params& params, pacer::HostServices&) {
#ifdef THROW_INPUT_ERROR
  throw pacer::InputError(params.where() + " budget must be positive, got -1");
#else
  (void)params;
  throw std::runtime_error("no device found");
#endif
}
}  // namespace

#ifdef THROW_INPUT_ERROR
PACER_PLUGIN(scheduler, "throws_input", "0.0.1", "test: factory throws InputError", make_throwing)
#else
PACER_PLUGIN(scheduler, "throws", "0.0.1", "test: factory throws std::runtime_error", make_throwing)
#endif
