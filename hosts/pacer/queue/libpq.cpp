#include "libpq.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

#include "pacer/error.hpp"

namespace pacer::host::queue {

namespace {

constexpr const char* kLibrary = "libpq.so.5";

// Never unloaded: connections live until exit.
Libpq load() {
  // By name, so the dynamic linker's own search finds it (ld.so.cache, LD_LIBRARY_PATH).
  void* library = ::dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!library)
    throw InputError(fmt::format("the PostgreSQL queue needs the client library {} (Debian package libpq5), which "
                                 "could not be loaded: {}",
                                 kLibrary, ::dlerror()));
  Libpq f;
#define PACER_LIBPQ_RESOLVE(name)                                                                                    \
  f.name = reinterpret_cast<decltype(f.name)>(::dlsym(library, #name));                                              \
  if (!f.name)                                                                                                       \
    throw InputError(fmt::format("{} has no function {}: the PostgreSQL queue needs libpq 10 or later", kLibrary,     \
                                 #name));
  PACER_LIBPQ_FUNCTIONS(PACER_LIBPQ_RESOLVE)
#undef PACER_LIBPQ_RESOLVE
  return f;
}

}  // namespace

const Libpq& libpq() {
  // A failed load throws out of the initialiser, and the next call tries again.
  static const Libpq functions = load();
  return functions;
}

}  // namespace pacer::host::queue
