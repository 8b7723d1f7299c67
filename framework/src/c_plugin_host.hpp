#pragma once
// The host's side of the C plugin ABI (pacer/plugin_abi.h, docs/plugins.md): checking a library's
// descriptor, lending the host's services as C tables, and the adapters that make a C allocator or
// scheduler table a pacer::Allocator / pacer::Scheduler for the engine. No exception crosses into
// plugin code: every function the host hands a plugin catches everything and returns a code.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "pacer/allocator.hpp"
#include "pacer/c_plugin_types.hpp"
#include "pacer/host_services.hpp"
#include "pacer/params.hpp"
#include "pacer/plugin_abi.h"
#include "pacer/scheduler.hpp"

namespace pacer::cabi {

// Why a plugin built against C ABI plugin_major.plugin_minor cannot load into a host speaking
// host_major.host_minor, or nothing when it can: the major must match; an older minor loads (it
// knows a prefix of every struct); a newer minor is refused, because its code may read fields that
// this host does not pass and nothing at run time could tell.
std::optional<std::string> version_refusal(uint32_t plugin_major, uint32_t plugin_minor,
                                           uint32_t host_major = PACER_PLUGIN_ABI_MAJOR,
                                           uint32_t host_minor = PACER_PLUGIN_ABI_MINOR);

// Everything else wrong with a descriptor whose version this host accepts (size, kind, name, the
// kind's table and its functions), or nothing.
std::optional<std::string> descriptor_refusal(const pacer_plugin_descriptor& d);

// Makes one object through the kind's C table. Errors from create become InputError or FailedError
// with the plugin's message; `params` records the keys read, as for a C++ factory. The object keeps
// what it was lent (the C views of the host's services) for as long as it lives.
std::unique_ptr<Allocator> make_allocator(const pacer_allocator_api& api, const Params& params, HostServices& host);
std::unique_ptr<Scheduler> make_scheduler(const pacer_scheduler_api& api, const Params& params, HostServices& host);

// The host's services as a plugin sees them; stays at one address (plugins keep the pointer).
class HostBridge {
 public:
  explicit HostBridge(HostServices& host);
  HostBridge(const HostBridge&) = delete;
  HostBridge& operator=(const HostBridge&) = delete;
  const pacer_host* view() const { return &view_; }
  spdlog::logger* log() const { return services_.log.get(); }

 private:
  HostServices services_;  // a copy: the runtime's struct changes once the allocator is made
  pacer_host_allocator allocator_{}, staging_{};
  pacer_host view_{};
};

// A plugin's Params as a C view, for one create call: strings it hands out live as long as it does.
class ParamsView {
 public:
  explicit ParamsView(const Params& params);
  ParamsView(const ParamsView&) = delete;
  ParamsView& operator=(const ParamsView&) = delete;
  const pacer_params* view() const { return &view_; }

 private:
  template <class T, class Read>
  int read(pacer_error* err, const char* key, T* out, Read&& read_value);

  const Params& params_;
  std::deque<std::string> strings_;
  pacer_params view_{};
};

// A pacer_error with a buffer of its own, for one call into a plugin.
struct ErrorBuffer {
  char text[1024] = {};
  pacer_error err{sizeof(pacer_error), PACER_OK, text, sizeof text};
  // Returns PACER_OK, or raises for anything else.
  int check(int rc, const std::string& what) const {
    if (rc != PACER_OK) raise(rc, what);
    return rc;
  }
  // InputError for PACER_ERR_INPUT, else FailedError; `what` says which call failed.
  [[noreturn]] void raise(int code, const std::string& what) const;
};

}  // namespace pacer::cabi
