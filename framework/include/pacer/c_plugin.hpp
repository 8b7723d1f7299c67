#pragma once
// C++ plugins on the C ABI (pacer/plugin_abi.h), header-only: write a pacer::Allocator or a
// pacer::Scheduler as usual, a factory taking ParamsView and Host, and export it with
//   PACER_C_PLUGIN(allocator, "mine", "1.0.0", "what it does", make_mine)
// The library then links nothing of Pacer's and shares no C++ type with the host, so any C++20
// compiler and standard library will do. Every function the host calls catches what the plugin
// throws and returns it as a code and a message: throw InputError for what the user can fix in
// the config (exit 2), anything else for a failure (exit 1).
#include <atomic>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "pacer/c_plugin_types.hpp"
#include "pacer/scheduler.hpp"

namespace pacer::cabi {

// Thrown by plugin code (and by ParamsView with the host's message); `code` is PACER_ERR_*.
struct PluginError : std::runtime_error {
  PluginError(int code, const std::string& what) : std::runtime_error(what), code(code) {}
  int code;
};
struct InputError : PluginError {
  explicit InputError(const std::string& what) : PluginError(PACER_ERR_INPUT, what) {}
};

inline int plugin_code_of(const std::exception& e) {
  const auto* error = dynamic_cast<const PluginError*>(&e);
  return error ? error->code : PACER_ERR_FAILED;
}

// The plugin's params table, read through the host (which keeps the unknown-key rule).
class ParamsView {
 public:
  explicit ParamsView(const pacer_params* params) : p_(params) {}
  std::string where() const { return p_->where ? p_->where : "params"; }
  bool has(const std::string& key) const { return p_->has(p_->ctx, key.c_str()) != 0; }
  int64_t get_int(const std::string& key, int64_t def) const { return get(p_->get_int, key, def); }
  double get_double(const std::string& key, double def) const { return get(p_->get_double, key, def); }
  bool get_bool(const std::string& key, bool def) const { return get(p_->get_bool, key, def ? 1 : 0) != 0; }
  std::string get_string(const std::string& key, const std::string& def) const {
    return get(p_->get_string, key, def.c_str());
  }
  // The host's "<file>:<line>: <where> <key> <what>" as an InputError.
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    Message m;
    p_->invalid(p_->ctx, key.c_str(), what.c_str(), &m.err);
    throw InputError(m.text);
  }

 private:
  struct Message {
    char text[1024] = {};
    pacer_error err{sizeof(pacer_error), PACER_OK, text, sizeof text};
  };
  template <class T, class Getter>
  T get(Getter getter, const std::string& key, T def) const {
    Message m;
    T out{};
    if (const int rc = getter(p_->ctx, key.c_str(), def, &out, &m.err); rc != PACER_OK) throw PluginError(rc, m.text);
    return out;
  }
  const pacer_params* p_;
};

// The host's allocator (pacer_host.allocator / staging) as a pacer::Allocator.
class HostAllocator final : public Allocator {
 public:
  explicit HostAllocator(const pacer_host_allocator* a) : a_(a) {}
  Block allocate(size_t bytes, const AllocHints& hints) override {
    const pacer_alloc_hints c_hints = to_c(hints);
    auto out = sized<pacer_block>();
    char text[512] = {};
    pacer_error err{sizeof err, PACER_OK, text, sizeof text};
    if (const int rc = a_->allocate(a_->ctx, bytes, &c_hints, &out, &err); rc != PACER_OK) throw PluginError(rc, text);
    return from_c(out);
  }
  void deallocate(Block block) noexcept override {
    const pacer_block c_block = to_c(block);
    a_->deallocate(a_->ctx, &c_block);
  }
  AllocStats stats() const override {
    auto out = sized<pacer_alloc_stats>();
    char text[512] = {};
    pacer_error err{sizeof err, PACER_OK, text, sizeof text};
    if (const int rc = a_->stats(a_->ctx, &out, &err); rc != PACER_OK) throw PluginError(rc, text);
    return from_c(out);
  }

 private:
  const pacer_host_allocator* a_;
};

// The host's clock and timers as a pacer::Timekeeper (what schedulers take their time from).
class HostClock final : public Timekeeper {
 public:
  explicit HostClock(const pacer_host* h) : h_(h) {}
  Clock::time_point now() const override { return from_ns(h_->now_ns(h_->ctx)); }
  // A timer still pending when the host shuts down is dropped uncalled: its function is freed
  // only if it runs (plugin_abi.h), so keep what it captures small.
  void call_at(Clock::time_point when, std::function<void()> fn) override {
    auto* box = new std::function<void()>(std::move(fn));
    h_->call_at(h_->ctx, to_ns(when), &run, box);
  }

 private:
  static void run(void* ctx) noexcept {
    std::unique_ptr<std::function<void()>> fn(static_cast<std::function<void()>*>(ctx));
    try {
      (*fn)();
    } catch (...) {  // a timer has nobody to report to; the scheduler logs its own failures
    }
  }
  const pacer_host* h_;
};

// What the host lends: logging, the clock, its allocators, the release policy.
class Host {
 public:
  explicit Host(const pacer_host* h)
      : h_(h), clock_(h->now_ns && h->call_at ? std::make_unique<HostClock>(h) : nullptr),
        allocator_(h->allocator ? std::make_unique<HostAllocator>(h->allocator) : nullptr),
        staging_(h->staging ? std::make_unique<HostAllocator>(h->staging) : nullptr) {}
  bool log_enabled(int level) const { return h_->log && (!h_->log_enabled || h_->log_enabled(h_->ctx, level)); }
  void log(int level, const std::string& message) const {
    if (h_->log) h_->log(h_->ctx, level, message.c_str());
  }
  void info(const std::string& message) const { log(PACER_LOG_INFO, message); }
  void debug(const std::string& message) const { log(PACER_LOG_DEBUG, message); }
  void warn(const std::string& message) const { log(PACER_LOG_WARN, message); }
  void error(const std::string& message) const { log(PACER_LOG_ERROR, message); }
  Timekeeper* time() const { return clock_.get(); }          // null where the host lends no clock
  Allocator* allocator() const { return allocator_.get(); }  // null while the allocator itself is made
  Allocator* staging() const { return staging_.get(); }
  ReleasePolicy release() const {
    return h_->release == PACER_RELEASE_BOUNDED ? ReleasePolicy::bounded : ReleasePolicy::immediate;
  }
  const pacer_host* raw() const { return h_; }

 private:
  const pacer_host* h_;
  std::unique_ptr<HostClock> clock_;
  std::unique_ptr<HostAllocator> allocator_, staging_;
};

template <class Object>
using Factory = std::unique_ptr<Object> (*)(const ParamsView&, Host&);

// One object and what it was lent, behind the opaque handle the host holds.
template <class Object>
struct Holder {
  std::unique_ptr<Host> host;
  std::unique_ptr<Object> object;
};

template <class Object, class Handle>
Object& object_of(Handle* self) {
  return *reinterpret_cast<Holder<Object>*>(self)->object;
}

template <class Object, class Handle, Factory<Object> F>
int create(const pacer_params* params, const pacer_host* host, Handle** out, pacer_error* err) noexcept {
  return guarded(err, plugin_code_of, [&] {
    auto holder = std::make_unique<Holder<Object>>();
    holder->host = std::make_unique<Host>(host);
    holder->object = F(ParamsView(params), *holder->host);
    if (!holder->object) throw PluginError(PACER_ERR_FAILED, "the factory returned no object");
    *out = reinterpret_cast<Handle*>(holder.release());
    return PACER_OK;
  });
}

template <class Object, class Handle>
void destroy(Handle* self) noexcept {
  delete reinterpret_cast<Holder<Object>*>(self);  // destructors that throw end the process anyway
}

// ---- allocator ------------------------------------------------------------------------------

template <Factory<Allocator> F>
const pacer_allocator_api* allocator_api() {
  static const pacer_allocator_api api = [] {
    auto a = sized<pacer_allocator_api>();
    a.create = &create<Allocator, pacer_allocator, F>;
    a.allocate = [](pacer_allocator* self, size_t bytes, const pacer_alloc_hints* hints, pacer_block* out,
                    pacer_error* err) noexcept {
      return guarded(err, plugin_code_of, [&] {
        write_out(out, to_c(object_of<Allocator>(self).allocate(bytes, from_c(read_in(hints)))));
        return PACER_OK;
      });
    };
    a.deallocate = [](pacer_allocator* self, const pacer_block* block) noexcept {
      object_of<Allocator>(self).deallocate(from_c(read_in(block)));
    };
    a.stats = [](pacer_allocator* self, pacer_alloc_stats* out, pacer_error* err) noexcept {
      return guarded(err, plugin_code_of, [&] {
        write_out(out, to_c(object_of<Allocator>(self).stats()));
        return PACER_OK;
      });
    };
    a.destroy = &destroy<Allocator, pacer_allocator>;
    return a;
  }();
  return &api;
}

// ---- scheduler ------------------------------------------------------------------------------

// A host callback given to the C++ scheduler as a std::function: runs at most once. abandon() is
// for a call that fails or says "go on": the host then frees the context, so a later call (which
// the contract forbids) must not reach it.
class OnceCallback {
 public:
  OnceCallback(pacer_callback fn, void* ctx) : fn_(fn), ctx_(ctx) {}
  void fire() {
    int pending = kPending;
    if (state_.compare_exchange_strong(pending, kCalled)) fn_(ctx_);
  }
  bool abandon() {  // true: it never ran and never will
    int pending = kPending;
    return state_.compare_exchange_strong(pending, kAbandoned);
  }
  static std::function<void()> as_function(const std::shared_ptr<OnceCallback>& once) {
    return [once] { once->fire(); };
  }

 private:
  static constexpr int kPending = 0, kCalled = 1, kAbandoned = 2;
  pacer_callback fn_;
  void* ctx_;
  std::atomic<int> state_{kPending};
};

template <Factory<Scheduler> F>
const pacer_scheduler_api* scheduler_api() {
  static const pacer_scheduler_api api = [] {
    auto s = sized<pacer_scheduler_api>();
    s.create = &create<Scheduler, pacer_scheduler, F>;
    s.admit = [](pacer_scheduler* self, const pacer_stage_ticket* ticket, pacer_callback start, void* start_ctx,
                 pacer_error* err) noexcept {
      auto once = std::make_shared<OnceCallback>(start, start_ctx);
      const int rc = guarded(err, plugin_code_of, [&] {
        object_of<Scheduler>(self).admit(from_c(read_in(ticket)), OnceCallback::as_function(once));
        return PACER_OK;
      });
      // Threw after starting the stage: it runs, so this is no failure to report.
      return rc == PACER_OK || once->abandon() ? rc : PACER_OK;
    };
    s.checkpoint = [](pacer_scheduler* self, const pacer_stage_ticket* ticket, pacer_callback resume,
                      void* resume_ctx, pacer_error* err) noexcept {
      auto once = std::make_shared<OnceCallback>(resume, resume_ctx);
      const int rc = guarded(err, plugin_code_of, [&] {
        return object_of<Scheduler>(self).checkpoint(from_c(read_in(ticket)), OnceCallback::as_function(once))
                   ? PACER_OK
                   : PACER_PAUSED;
      });
      // Whatever it said, a resume that already ran (or may still) belongs to the host's pause.
      if (rc == PACER_PAUSED) return rc;
      return once->abandon() ? rc : PACER_PAUSED;
    };
    s.finished = [](pacer_scheduler* self, const pacer_stage_ticket* ticket, const pacer_stage_stats* stats,
                    pacer_error* err) noexcept {
      return guarded(err, plugin_code_of, [&] {
        object_of<Scheduler>(self).finished(from_c(read_in(ticket)), from_c(read_in(stats)));
        return PACER_OK;
      });
    };
    s.destroy = &destroy<Scheduler, pacer_scheduler>;
    return s;
  }();
  return &api;
}

}  // namespace pacer::cabi

// Exports a C++ allocator or scheduler through the C ABI. KIND: allocator or scheduler; FACTORY:
// std::unique_ptr<pacer::Allocator or pacer::Scheduler>(const pacer::cabi::ParamsView&, pacer::cabi::Host&).
#define PACER_C_PLUGIN(KIND, NAME, VERSION, SUMMARY, FACTORY) \
  PACER_PLUGIN_DEFINE(KIND, NAME, VERSION, SUMMARY, ::pacer::cabi::KIND##_api<FACTORY>())
