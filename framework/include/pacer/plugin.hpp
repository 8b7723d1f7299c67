#pragma once
// The plugin ABI. A plugin is a shared library that exports, by Boost.DLL alias, two symbols:
//   pacer_plugin_info   : PluginInfo()                               -- what it is
//   pacer_plugin_create : <Kind>Factory                              -- makes one object
// and, as a mark the host reads from the file before loading it, pacer_plugin_kind_<kind>.
// The host loads only libraries that export the first two (a library it does not load runs no
// code), then checks abi, kind and name before it calls the factory (cf. LLVM's PassPlugin).
#include <boost/dll/alias.hpp>
#include <cstdint>
#include <memory>
#include <string_view>

#include "pacer/allocator.hpp"
#include "pacer/backend.hpp"
#include "pacer/host_services.hpp"
#include "pacer/params.hpp"
#include "pacer/cxx_plugin_abi.hpp"  // kCxxPluginAbi: generated, a hash of this header and those it includes
#include "pacer/scheduler.hpp"

namespace pacer {

enum class PluginKind : uint32_t { backend = 0, allocator = 1, scheduler = 2 };

constexpr std::string_view kind_name(PluginKind k) {
  switch (k) {
    case PluginKind::backend: return "backend";
    case PluginKind::allocator: return "allocator";
    case PluginKind::scheduler: return "scheduler";
  }
  return "unknown";
}

struct PluginInfo {
  uint32_t abi;
  PluginKind kind;
  const char* name;     // unique per kind, what [backend] plugin = "..." names
  const char* version;
  const char* summary;
};

// Factories read their [<kind>.params] table through Params (unknown keys become errors).
using BackendFactory = std::unique_ptr<Backend>(const Params& params, HostServices& host);
using AllocatorFactory = std::unique_ptr<Allocator>(const Params& params, HostServices& host);
using SchedulerFactory = std::unique_ptr<Scheduler>(const Params& params, HostServices& host);

template <PluginKind K> struct FactoryOf;
template <> struct FactoryOf<PluginKind::backend> { using type = BackendFactory; using object = Backend; };
template <> struct FactoryOf<PluginKind::allocator> { using type = AllocatorFactory; using object = Allocator; };
template <> struct FactoryOf<PluginKind::scheduler> { using type = SchedulerFactory; using object = Scheduler; };

}  // namespace pacer

// Use once per plugin, at namespace scope:
//   PACER_PLUGIN(backend, "cpu", "0.1.0", "reference CPU backend", make_cpu_backend)
// where make_cpu_backend matches the kind's factory signature. Besides the entry points it exports
// the kind and the name as data, so that the loader knows both from the file and loads (runs the
// code of) only the plugins a command asks for.
#define PACER_PLUGIN(KIND, NAME, VERSION, SUMMARY, FACTORY)                                          \
  namespace pacer_plugin_exports {                                                                   \
  inline ::pacer::PluginInfo pacer_plugin_info_fn() {                                                \
    return ::pacer::PluginInfo{::pacer::kCxxPluginAbi, ::pacer::PluginKind::KIND, NAME, VERSION, SUMMARY}; \
  }                                                                                                  \
  inline std::unique_ptr<::pacer::FactoryOf<::pacer::PluginKind::KIND>::object> pacer_plugin_create_call( \
      const ::pacer::Params& p, ::pacer::HostServices& h) {                                          \
    return FACTORY(p, h);                                                                            \
  }                                                                                                  \
  }                                                                                                  \
  BOOST_DLL_ALIAS(pacer_plugin_exports::pacer_plugin_info_fn, pacer_plugin_info)                     \
  BOOST_DLL_ALIAS(pacer_plugin_exports::pacer_plugin_create_call, pacer_plugin_create)               \
  extern "C" BOOST_SYMBOL_EXPORT const char pacer_plugin_kind_##KIND = 1;                           \
  extern "C" BOOST_SYMBOL_EXPORT const char pacer_plugin_name[] = NAME;
