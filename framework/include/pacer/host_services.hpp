#pragma once
// What the host lends every plugin: one logger, the configured allocator and the shared CPU pool
// (plugins never spawn their own threads: oversubscription is one of the contention causes).
#include <memory>

namespace spdlog { class logger; }

namespace pacer {

class Allocator;
class ThreadPool;

struct HostServices {
  std::shared_ptr<spdlog::logger> log;
  Allocator* allocator = nullptr;  // null only while the allocator itself is being created
  ThreadPool* pool = nullptr;
};

}  // namespace pacer
