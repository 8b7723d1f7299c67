#pragma once
// What the host lends every plugin: one logger, the configured allocators and the shared CPU pool
// (plugins never spawn their own threads: oversubscription is one of the contention causes).
#include <memory>

#include "pacer/allocator.hpp"

namespace spdlog { class logger; }

namespace pacer {

class ThreadPool;
class Timekeeper;

struct HostServices {
  std::shared_ptr<spdlog::logger> log;
  Allocator* allocator = nullptr;  // null only while the allocator itself is being created
  // Buffers a backend copies to or from a device (Usage::abc, witness, staging): the [staging]
  // allocator of the config (e.g. cuda_pinned), else the same object as `allocator`.
  Allocator* staging = nullptr;
  ThreadPool* pool = nullptr;
  // Clock and timers for schedulers (scheduler.hpp): the runtime's, or a simulation's in tests.
  Timekeeper* time = nullptr;
  // [pipeline] release: how an allocator gives memory back to the OS (allocator.hpp).
  ReleasePolicy release = ReleasePolicy::immediate;
};

}  // namespace pacer
