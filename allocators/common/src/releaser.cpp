#include "pacer/alloc/releaser.hpp"

#include "pacer/thread_guard.hpp"

namespace pacer::alloc {

Releaser::Releaser(ReleasePolicy policy, uint64_t backlog_cap_bytes)
    : policy_(policy), backlog_cap_(backlog_cap_bytes) {}

Releaser::~Releaser() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (const Mapping& m : backlog_) unmap_now(m);  // only when the thread never started
}

void Releaser::unmap_now(const Mapping& m) noexcept {
  if (unmap(m) != 0) return;  // EINVAL cannot happen for our own mappings; nothing to undo
  released_bytes_.fetch_add(m.length, std::memory_order_relaxed);
  unmaps_.fetch_add(1, std::memory_order_relaxed);
}

void Releaser::release(const Mapping& m) noexcept {
  if (policy_ == ReleasePolicy::bounded) {
    std::unique_lock lock(mu_);
    if (!stop_ && backlog_bytes_ + m.length <= backlog_cap_) {
      if (!thread_.joinable()) {
        try {
          thread_ = std::thread(
              [this] { call_and_log_exceptions([this] { run(); }, nullptr, "the allocator's release thread"); });
        } catch (...) {  // no thread to be had: release as "immediate" does
          lock.unlock();
          unmap_now(m);
          return;
        }
      }
      backlog_.push_back(m);
      backlog_bytes_ += m.length;
      lock.unlock();
      wake_.notify_one();
      return;
    }
  }
  unmap_now(m);  // immediate, or the backlog is full: this thread pays, the backlog stays bounded
}

void Releaser::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || !backlog_.empty(); });
    if (backlog_.empty()) return;  // stop_ and nothing left
    const Mapping m = backlog_.front();
    backlog_.pop_front();
    busy_ = true;
    lock.unlock();
    unmap_now(m);
    lock.lock();
    busy_ = false;
    backlog_bytes_ -= m.length;
    if (backlog_.empty()) drained_.notify_all();
  }
}

void Releaser::drain() noexcept {
  std::unique_lock lock(mu_);
  drained_.wait(lock, [&] { return backlog_.empty() && !busy_; });
}

uint64_t Releaser::pending_bytes() const {
  std::lock_guard lock(mu_);
  return backlog_bytes_;
}

}  // namespace pacer::alloc
