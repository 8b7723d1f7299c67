// A C plugin's allocator or scheduler table as the pacer::Allocator / pacer::Scheduler the engine
// calls (c_plugin_host.hpp). Error codes become exceptions here, on the host's side of the
// boundary; host callbacks handed to the plugin (start, resume) catch what they throw.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "c_plugin_host.hpp"
#include "pacer/error.hpp"

namespace pacer::cabi {

namespace {

// A host callback crossing into the plugin as (function, context): run, and freed, once.
struct Callback {
  std::function<void()> fn;
  spdlog::logger* log;
  const char* what;

  static void run(void* ctx) noexcept {
    std::unique_ptr<Callback> self(static_cast<Callback*>(ctx));
    try {
      self->fn();
    } catch (const std::exception& e) {
      if (self->log) self->log->error("a scheduler's {} callback failed: {}", self->what, e.what());
    } catch (...) {
      if (self->log) self->log->error("a scheduler's {} callback failed", self->what);
    }
  }
};

// A C function is not supposed to throw; one written in C++ without pacer/c_plugin.hpp might.
template <class F>
auto call_plugin(const char* what, F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    throw FailedError(fmt::format("a C plugin's {} threw across the C ABI: {}", what, e.what()));
  } catch (...) {
    throw FailedError(fmt::format("a C plugin's {} threw across the C ABI", what));
  }
}

template <class Handle, class Api>
Handle* create_object(const Api& api, const Params& params, const HostBridge& bridge) {
  ParamsView view(params);
  ErrorBuffer error;
  Handle* handle = nullptr;
  error.check(call_plugin("create", [&] { return api.create(view.view(), bridge.view(), &handle, &error.err); }),
              "create");
  if (!handle) throw FailedError("its create returned no object");
  return handle;
}

// One object made through a kind's table, and what it was lent; destroyed through the table.
template <class Api, class Handle>
class CObject {
 protected:
  CObject(const Api& api, const Params& params, HostServices& host)
      : api_(read_in(&api)), bridge_(std::make_unique<HostBridge>(host)),
        self_(create_object<Handle>(api_, params, *bridge_)) {}
  ~CObject() { api_.destroy(self_); }

  const Api api_;                       // the plugin's table, as far as its struct_size goes
  std::unique_ptr<HostBridge> bridge_;  // what self_ was lent; outlives it
  Handle* self_;
};

class CAllocator final : public Allocator, private CObject<pacer_allocator_api, pacer_allocator> {
 public:
  CAllocator(const pacer_allocator_api& api, const Params& params, HostServices& host) : CObject(api, params, host) {}

  Block allocate(size_t bytes, const AllocHints& hints) override {
    const pacer_alloc_hints c_hints = to_c(hints);
    auto out = sized<pacer_block>();
    ErrorBuffer error;
    error.check(call_plugin("allocate", [&] { return api_.allocate(self_, bytes, &c_hints, &out, &error.err); }),
                "allocate");
    if (!out.data) throw FailedError(fmt::format("the allocator returned no memory for {} bytes", bytes));
    if (out.bytes < bytes) {
      api_.deallocate(self_, &out);
      throw FailedError(fmt::format("the allocator granted {} bytes when {} were asked", out.bytes, bytes));
    }
    return from_c(out);
  }

  void deallocate(Block block) noexcept override {
    const pacer_block c_block = to_c(block);
    try {
      api_.deallocate(self_, &c_block);
    } catch (...) {
      if (bridge_->log()) bridge_->log()->error("a C allocator's deallocate threw across the C ABI");
    }
  }

  AllocStats stats() const override {
    auto out = sized<pacer_alloc_stats>();
    ErrorBuffer error;
    error.check(call_plugin("stats", [&] { return api_.stats(self_, &out, &error.err); }), "stats");
    return from_c(out);
  }
};

class CScheduler final : public Scheduler, private CObject<pacer_scheduler_api, pacer_scheduler> {
 public:
  CScheduler(const pacer_scheduler_api& api, const Params& params, HostServices& host) : CObject(api, params, host) {}

  void admit(const StageTicket& ticket, std::function<void()> start) override {
    const pacer_stage_ticket c_ticket = to_c(ticket);
    auto callback = std::make_unique<Callback>(Callback{std::move(start), bridge_->log(), "start"});
    ErrorBuffer error;
    const int rc = call_plugin(
        "admit", [&] { return api_.admit(self_, &c_ticket, &Callback::run, callback.get(), &error.err); });
    if (rc == PACER_OK) callback.release();  // the plugin calls it (now or later), and that frees it
    else error.raise(rc, "admit");           // never called: freed here
  }

  bool checkpoint(const StageTicket& ticket, std::function<void()> resume) override {
    const pacer_stage_ticket c_ticket = to_c(ticket);
    auto callback = std::make_unique<Callback>(Callback{std::move(resume), bridge_->log(), "resume"});
    ErrorBuffer error;
    const int rc = call_plugin(
        "checkpoint", [&] { return api_.checkpoint(self_, &c_ticket, &Callback::run, callback.get(), &error.err); });
    if (rc == PACER_PAUSED) {
      callback.release();  // the plugin's now; it may already have run on another thread
      return false;
    }
    if (rc != PACER_OK) error.raise(rc, "checkpoint");
    return true;
  }

  void finished(const StageTicket& ticket, const StageStats& stats) override {
    const pacer_stage_ticket c_ticket = to_c(ticket);
    const pacer_stage_stats c_stats = to_c(stats);
    ErrorBuffer error;
    error.check(call_plugin("finished", [&] { return api_.finished(self_, &c_ticket, &c_stats, &error.err); }),
                "finished");
  }
};

}  // namespace

std::unique_ptr<Allocator> make_allocator(const pacer_allocator_api& api, const Params& params, HostServices& host) {
  return std::make_unique<CAllocator>(api, params, host);
}

std::unique_ptr<Scheduler> make_scheduler(const pacer_scheduler_api& api, const Params& params, HostServices& host) {
  return std::make_unique<CScheduler>(api, params, host);
}

}  // namespace pacer::cabi
