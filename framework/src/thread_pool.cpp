#include "pacer/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>

namespace pacer {

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  // The caller of parallel_for works too, so threads-1 workers give `threads` busy cores.
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

thread_local int ThreadPool::Urgent::depth_ = 0;

void ThreadPool::submit(std::function<void()> task) { push(std::move(task), false); }

void ThreadPool::push(std::function<void()> task, bool urgent) {
  {
    std::lock_guard lock(mu_);
    if (urgent) {
      queue_.push_front({std::move(task), true});
      urgent_queued_.fetch_add(1);
    } else {
      queue_.push_back({std::move(task), false});
    }
  }
  cv_.notify_one();
}

void ThreadPool::worker_loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front().fn);
      if (queue_.front().urgent) urgent_queued_.fetch_sub(1);
      queue_.pop_front();
    }
    task();
  }
}

namespace {
// Shared by the caller and the helper tasks of one parallel_for.
struct ForState {
  size_t n;
  const std::function<void(size_t)>* fn;
  // Set for a helper of an ordinary loop: while urgent tasks wait, it hands its thread back.
  const std::atomic<size_t>* yield_to = nullptr;
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::mutex mu;
  std::condition_variable cv;
  std::exception_ptr error;

  // Claims indices until none are left; returns when this thread has no more to do (or, as a
  // helper that yields, when urgent work waits: the loop's caller and other helpers finish it).
  void drain(bool helper) {
    for (;;) {
      if (helper && yield_to && yield_to->load(std::memory_order_relaxed) > 0) return;
      size_t i = next.fetch_add(1);
      if (i >= n) return;
      try {
        (*fn)(i);
      } catch (...) {
        std::lock_guard lock(mu);
        if (!error) error = std::current_exception();
      }
      if (done.fetch_add(1) + 1 == n) {
        std::lock_guard lock(mu);
        cv.notify_all();
      }
    }
  }
};
}  // namespace

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t)>& fn, unsigned max_threads) {
  if (n == 0) return;
  if (n == 1 || workers_.empty() || max_threads == 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  auto state = std::make_shared<ForState>();
  state->n = n;
  state->fn = &fn;
  const bool urgent = Urgent::active();
  if (!urgent) state->yield_to = &urgent_queued_;
  size_t helpers = std::min(n - 1, workers_.size());
  if (max_threads > 1) helpers = std::min<size_t>(helpers, max_threads - 1);
  for (size_t h = 0; h < helpers; ++h) push([state] { state->drain(true); }, urgent);
  state->drain(false);
  // Helpers that start after all indices are claimed return at once; fn outlives every call
  // because we wait for `done`, not for the helper tasks.
  std::unique_lock lock(state->mu);
  state->cv.wait(lock, [&] { return state->done.load() == n; });
  if (state->error) std::rethrow_exception(state->error);
}

}  // namespace pacer
