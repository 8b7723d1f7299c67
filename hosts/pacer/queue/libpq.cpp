#include "libpq.hpp"

#include <memory>
#include <string>
#include <type_traits>

#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>

#include "pacer/error.hpp"

namespace pacer::host::queue {

namespace {

constexpr const char* kLibrary = "libpq.so.5";

struct Loaded {
  boost::dll::shared_library library;  // stays loaded until exit: the connections use it
  Libpq functions;
};

std::unique_ptr<Loaded> load() {
  auto loaded = std::make_unique<Loaded>();
  try {
    // By name, so the dynamic linker's own search path finds it (ld.so.cache, LD_LIBRARY_PATH).
    loaded->library.load(kLibrary, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("the PostgreSQL queue needs the client library {} (Debian package libpq5), which "
                                 "could not be loaded: {}",
                                 kLibrary, e.what()));
  }
  auto& lib = loaded->library;
  auto& f = loaded->functions;
#define PACER_LIBPQ_RESOLVE(name)                                                                                    \
  if (!lib.has(#name))                                                                                               \
    throw InputError(fmt::format("{} has no function {}: the PostgreSQL queue needs libpq 10 or later", kLibrary,     \
                                 #name));                                                                            \
  f.name = &lib.get<std::remove_pointer_t<decltype(f.name)>>(#name);
  PACER_LIBPQ_FUNCTIONS(PACER_LIBPQ_RESOLVE)
#undef PACER_LIBPQ_RESOLVE
  return loaded;
}

}  // namespace

const Libpq& libpq() {
  // A failed load throws out of the initialiser, and the next call tries again.
  static const std::unique_ptr<Loaded> loaded = load();
  return loaded->functions;
}

}  // namespace pacer::host::queue
