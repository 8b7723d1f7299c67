// What the host checks in a C plugin's descriptor, and what it lends one: its services as C
// tables (c_plugin_host.hpp). Every function handed to a plugin catches everything.
#include "c_plugin_host.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/error.hpp"
#include "pacer/printable.hpp"

namespace pacer::cabi {

namespace {

// pacer::Error knows its exit code; anything else thrown by host code is a failure at run time.
int host_code_of(const std::exception& e) {
  const auto* error = dynamic_cast<const Error*>(&e);
  return error && error->code() == ExitCode::bad_input ? PACER_ERR_INPUT : PACER_ERR_FAILED;
}

template <class F>
int host_guarded(pacer_error* err, F&& f) noexcept {
  return guarded(err, host_code_of, std::forward<F>(f));
}

// The end of a struct's last field as ABI 1.0 defines it: anything shorter is not a 1.x struct.
constexpr size_t kDescriptorV1 = offsetof(pacer_plugin_descriptor, api) + sizeof(void*);
constexpr size_t kAllocatorApiV1 = offsetof(pacer_allocator_api, destroy) + sizeof(void*);
constexpr size_t kSchedulerApiV1 = offsetof(pacer_scheduler_api, destroy) + sizeof(void*);

std::optional<std::string> too_small(const char* what, uint32_t size, size_t v1_size) {
  if (size >= v1_size) return std::nullopt;
  return fmt::format("its {} has {} bytes, C ABI 1.0's has {}", what, size, v1_size);
}

std::optional<std::string> missing_function(const char* kind,
                                            std::initializer_list<std::pair<const char*, bool>> functions) {
  for (const auto& [name, present] : functions)
    if (!present) return fmt::format("its {} table has no {} function", kind, name);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> version_refusal(uint32_t plugin_major, uint32_t plugin_minor, uint32_t host_major,
                                           uint32_t host_minor) {
  if (plugin_major != host_major)
    return fmt::format("C plugin ABI {}.{} but this host speaks {}.{} (another major version is another interface): "
                       "rebuild the plugin against this Pacer's pacer/plugin_abi.h",
                       plugin_major, plugin_minor, host_major, host_minor);
  if (plugin_minor > host_minor)
    return fmt::format("C plugin ABI {}.{} is newer than this host's {}.{} (the plugin may read fields this host "
                       "does not pass): rebuild it against this Pacer's pacer/plugin_abi.h, or use a newer Pacer",
                       plugin_major, plugin_minor, host_major, host_minor);
  return std::nullopt;
}

std::optional<std::string> descriptor_refusal(const pacer_plugin_descriptor& d) {
  if (auto small = too_small("descriptor", d.struct_size, kDescriptorV1)) return small;
  if (d.kind == PACER_KIND_BACKEND)
    return std::string("a backend on the C ABI: backends use the C++ interface (PACER_PLUGIN in pacer/plugin.hpp)");
  if (d.kind != PACER_KIND_ALLOCATOR && d.kind != PACER_KIND_SCHEDULER)
    return fmt::format("unknown plugin kind {} (this host knows backend, allocator, scheduler)", d.kind);
  if (!d.name || !*d.name) return std::string("the plugin has an empty name");
  if (!d.api) return std::string("its descriptor has no function table (api is null)");
  if (d.kind == PACER_KIND_ALLOCATOR) {
    const auto* a = static_cast<const pacer_allocator_api*>(d.api);
    if (auto small = too_small("allocator table", a->struct_size, kAllocatorApiV1)) return small;
    return missing_function("allocator", {{"create", a->create != nullptr},
                                          {"allocate", a->allocate != nullptr},
                                          {"deallocate", a->deallocate != nullptr},
                                          {"stats", a->stats != nullptr},
                                          {"destroy", a->destroy != nullptr}});
  }
  const auto* s = static_cast<const pacer_scheduler_api*>(d.api);
  if (auto small = too_small("scheduler table", s->struct_size, kSchedulerApiV1)) return small;
  return missing_function("scheduler", {{"create", s->create != nullptr},
                                        {"admit", s->admit != nullptr},
                                        {"checkpoint", s->checkpoint != nullptr},
                                        {"finished", s->finished != nullptr},
                                        {"destroy", s->destroy != nullptr}});
}

void ErrorBuffer::raise(int code, const std::string& what) const {
  std::string message(text, strnlen(text, sizeof text));
  if (message.empty()) message = fmt::format("{} failed with code {} and no message", what, code);
  if (code == PACER_ERR_INPUT) throw InputError(message);
  throw FailedError(message);
}

// ---- the host's allocator, as a C table ----------------------------------------------------

namespace {

int host_allocate(void* ctx, size_t bytes, const pacer_alloc_hints* hints, pacer_block* out, pacer_error* err) {
  return host_guarded(err, [&] {
    if (!out) throw FailedError("allocate: out is null");
    write_out(out, to_c(static_cast<Allocator*>(ctx)->allocate(bytes, from_c(read_in(hints)))));
    return PACER_OK;
  });
}

void host_deallocate(void* ctx, const pacer_block* block) {
  if (block) static_cast<Allocator*>(ctx)->deallocate(from_c(read_in(block)));  // noexcept
}

int host_stats(void* ctx, pacer_alloc_stats* out, pacer_error* err) {
  return host_guarded(err, [&] {
    if (!out) throw FailedError("stats: out is null");
    write_out(out, to_c(static_cast<Allocator*>(ctx)->stats()));
    return PACER_OK;
  });
}

pacer_host_allocator host_allocator_view(Allocator* allocator) {
  auto view = sized<pacer_host_allocator>();
  view.ctx = allocator;
  view.allocate = host_allocate;
  view.deallocate = host_deallocate;
  view.stats = host_stats;
  return view;
}

spdlog::level::level_enum spdlog_level(int level) {
  return level <= PACER_LOG_TRACE   ? spdlog::level::trace
         : level >= PACER_LOG_ERROR ? spdlog::level::err
                                    : static_cast<spdlog::level::level_enum>(level);
}

}  // namespace

HostBridge::HostBridge(HostServices& host) : services_(host) {
  view_ = sized<pacer_host>();
  view_.ctx = this;
  view_.log = [](void* ctx, int level, const char* message) {
    auto* log = static_cast<HostBridge*>(ctx)->log();
    if (!log || !message) return;
    try {
      log->log(spdlog_level(level), "{}", printable(message));
    } catch (...) {  // a log line lost is better than an exception inside the plugin
    }
  };
  view_.log_enabled = [](void* ctx, int level) -> int {
    auto* log = static_cast<HostBridge*>(ctx)->log();
    return log && log->should_log(spdlog_level(level));
  };
  if (services_.time) {  // schedulers' clock; allocators made by a bare test rig get none
    view_.now_ns = [](void* ctx) { return to_ns(static_cast<HostBridge*>(ctx)->services_.time->now()); };
    view_.call_at = [](void* ctx, int64_t when_ns, pacer_callback fn, void* fn_ctx) {
      auto* self = static_cast<HostBridge*>(ctx);
      try {
        self->services_.time->call_at(from_ns(when_ns), [fn, fn_ctx] { fn(fn_ctx); });
      } catch (const std::exception& e) {
        if (self->log()) self->log()->error("a C plugin's timer could not be set: {}", e.what());
      }
    };
  }
  if (services_.allocator) {
    allocator_ = host_allocator_view(services_.allocator);
    view_.allocator = &allocator_;
  }
  if (services_.staging || services_.allocator) {
    staging_ = host_allocator_view(services_.staging ? services_.staging : services_.allocator);
    view_.staging = &staging_;
  }
  view_.release = services_.release == ReleasePolicy::bounded ? PACER_RELEASE_BOUNDED : PACER_RELEASE_IMMEDIATE;
}

// ---- params, as a C view ---------------------------------------------------------------------

ParamsView::ParamsView(const Params& params) : params_(params) {
  view_ = sized<pacer_params>();
  view_.ctx = this;
  view_.where = params_.where().c_str();
  view_.has = [](void* ctx, const char* key) -> int {
    try {
      return key && static_cast<ParamsView*>(ctx)->params_.has(key);
    } catch (...) {
      return 0;
    }
  };
  view_.get_int = [](void* ctx, const char* key, int64_t def, int64_t* out, pacer_error* err) {
    return static_cast<ParamsView*>(ctx)->read(err, key, out, [&](const Params& p) { return p.get_int(key, def); });
  };
  view_.get_double = [](void* ctx, const char* key, double def, double* out, pacer_error* err) {
    return static_cast<ParamsView*>(ctx)->read(err, key, out, [&](const Params& p) { return p.get_double(key, def); });
  };
  view_.get_bool = [](void* ctx, const char* key, int def, int* out, pacer_error* err) {
    return static_cast<ParamsView*>(ctx)->read(err, key, out,
                                               [&](const Params& p) { return p.get_bool(key, def != 0) ? 1 : 0; });
  };
  view_.get_string = [](void* ctx, const char* key, const char* def, const char** out, pacer_error* err) {
    auto* self = static_cast<ParamsView*>(ctx);
    return self->read(err, key, out, [&](const Params& p) {
      // Kept until create returns: the view owns what it hands out.
      return self->strings_.emplace_back(p.get_string(key, def ? def : "")).c_str();
    });
  };
  view_.invalid = [](void* ctx, const char* key, const char* what, pacer_error* err) {
    const Params& p = static_cast<ParamsView*>(ctx)->params_;
    return host_guarded(err, [&]() -> int {
      const std::string name = key ? key : "";
      const std::string reason = what ? what : "is not acceptable";
      if (const toml::value* v = p.find(name)) p.fail(*v, name, reason);
      throw InputError(fmt::format("{} {} {}", p.where(), name, reason));
    });
  };
}

template <class T, class Read>
int ParamsView::read(pacer_error* err, const char* key, T* out, Read&& read_value) {
  return host_guarded(err, [&] {
    if (!key || !out) throw FailedError(fmt::format("{}: a params getter was called with a null key or out", params_.where()));
    *out = read_value(params_);
    return PACER_OK;
  });
}

}  // namespace pacer::cabi
