#pragma once
// Gives mappings back to the OS under the [pipeline] release policy. immediate: munmap on the
// freeing thread. bounded: one background thread does the munmaps (and so takes the TLB
// shootdowns off a proof's critical path); its backlog is capped in bytes, and past the cap the
// freeing thread unmaps itself, so memory waiting for release never grows without bound.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

#include "pacer/alloc/pages.hpp"
#include "pacer/allocator.hpp"

namespace pacer::alloc {

class Releaser {
 public:
  Releaser(ReleasePolicy policy, uint64_t backlog_cap_bytes);
  ~Releaser();  // finishes the backlog
  Releaser(const Releaser&) = delete;
  Releaser& operator=(const Releaser&) = delete;

  void release(const Mapping& m) noexcept;
  // Blocks until the backlog is empty (tests; shutdown).
  void drain() noexcept;

  ReleasePolicy policy() const { return policy_; }
  uint64_t released_bytes() const { return released_bytes_.load(std::memory_order_relaxed); }
  uint64_t unmaps() const { return unmaps_.load(std::memory_order_relaxed); }
  uint64_t pending_bytes() const;

 private:
  void unmap_now(const Mapping& m) noexcept;
  void run();

  const ReleasePolicy policy_;
  const uint64_t backlog_cap_;
  std::atomic<uint64_t> released_bytes_{0}, unmaps_{0};
  mutable std::mutex mu_;
  std::condition_variable wake_, drained_;
  std::deque<Mapping> backlog_;
  uint64_t backlog_bytes_ = 0;
  bool busy_ = false;  // the thread holds a mapping taken off the backlog
  bool stop_ = false;
  std::thread thread_;  // started at the first bounded release
};

}  // namespace pacer::alloc
