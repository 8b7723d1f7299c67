#include "pacer/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "pacer/cpus.hpp"
#include "pacer/error.hpp"
#include "pacer/thread_guard.hpp"

namespace pacer {

ThreadPool::ThreadPool(unsigned threads)
    : ThreadPool(threads, [](std::function<void()> body) { return std::thread(std::move(body)); }) {}

ThreadPool::ThreadPool(unsigned threads, const StartWorker& start_worker) {
  if (threads == 0) threads = available_cpus();
  // The caller of parallel_for works too, so threads-1 workers give `threads` busy cores.
  workers_.reserve(threads - 1);
  for (unsigned i = 1; i < threads; ++i) {
    try {
      workers_.push_back(start_worker([this] { worker_loop(); }));
    } catch (const std::system_error& e) {
      // The destructor does not run for a constructor that throws: stop and join the workers
      // started so far here (destroying the condition variable under them would hang).
      stop_workers();
      throw InputError(fmt::format(
          "[host] threads: the system refused to start thread {} of {}: {} (lower [host] threads, or raise the "
          "limit on processes and threads: ulimit -u, the cgroup's pids.max)",
          i + 1, threads, e.code().message()));
    }
  }
}

ThreadPool::~ThreadPool() { stop_workers(); }

void ThreadPool::stop_workers() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
}

thread_local int ThreadPool::Urgent::depth_ = 0;
thread_local const std::atomic<bool>* ThreadPool::PauseWatch::current_ = nullptr;

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
    call_and_log_exceptions(task, log_.load(), "a task on the CPU pool");
  }
}

namespace {
// Shared by the caller and the helper tasks of one parallel_for.
struct ForState {
  size_t n;
  const std::function<void(size_t)>* fn;
  // Set for a helper of an ordinary loop: while urgent tasks wait, it hands its thread back.
  const std::atomic<size_t>* yield_to = nullptr;
  // The paused flag of the stage that runs this loop (ThreadPool::PauseWatch), if any.
  const std::atomic<bool>* paused = nullptr;
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::atomic<size_t> helpers{0};  // helper tasks queued or draining, not yet gone
  // `paused` belongs to the stage, which may end as soon as the caller returns: a helper task that
  // starts after `finished` must not read it, and the caller waits for those inside help().
  std::atomic<size_t> active{0};
  std::atomic<bool> finished{false};
  std::mutex mu;
  std::condition_variable cv;
  std::exception_ptr error;

  bool should_leave() const {
    return (yield_to && yield_to->load(std::memory_order_relaxed) > 0) ||
           (paused && paused->load(std::memory_order_relaxed));
  }
  bool run_next() {
    const size_t i = next.fetch_add(1);
    if (i >= n) return false;
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
    return true;
  }
  // A helper claims indices until none are left, or until it should hand its thread back
  // (urgent work waits, or the stage is paused); the caller and other helpers finish the loop.
  void help() {
    active.fetch_add(1);  // before reading `finished`: with the caller's store then load, one sees the other
    if (!finished.load()) {
      ThreadPool::PauseWatch watch(paused);  // loops nested in fn watch the same stage
      while (!should_leave() && run_next()) {
      }
    }
    active.fetch_sub(1);
    helpers.fetch_sub(1);
  }
  // How many helpers to invite back after some left: none while they would leave again.
  size_t missing(size_t wanted) const {
    if (should_leave()) return 0;
    const size_t left = n - std::min(n, next.load(std::memory_order_relaxed));
    const size_t have = helpers.load();
    const size_t useful = left > 1 ? std::min(wanted, left - 1) : 0;
    return useful > have ? useful - have : 0;
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
  state->paused = PauseWatch::current();
  const bool urgent = Urgent::active();
  if (!urgent) state->yield_to = &urgent_queued_;
  size_t wanted = std::min(n - 1, workers_.size());
  if (max_threads > 1) wanted = std::min<size_t>(wanted, max_threads - 1);
  auto invite = [&](size_t count) {
    for (size_t h = 0; h < count; ++h) {
      state->helpers.fetch_add(1);
      push([state] { state->help(); }, urgent);
    }
  };
  invite(wanted);
  // The caller never leaves its own loop (a paused stage's caller waits inside fn, at its
  // checkpoint); between indices it invites back the helpers that left.
  while (state->run_next()) invite(state->missing(wanted));
  // Helpers that start after all indices are claimed return at once; fn outlives every call
  // because we wait for `done`, not for the helper tasks.
  {
    std::unique_lock lock(state->mu);
    state->cv.wait(lock, [&] { return state->done.load() == n; });
  }
  // Every index is done, so a helper still inside help() is past its last one: brief. (Found by
  // ThreadSanitizer: a helper that started late read the paused flag of a stage that had ended.)
  state->finished.store(true);
  while (state->active.load() != 0) std::this_thread::yield();
  if (state->error) std::rethrow_exception(state->error);
}

}  // namespace pacer
