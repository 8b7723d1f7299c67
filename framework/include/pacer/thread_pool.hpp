#pragma once
// The one CPU pool of a host process. parallel_for lets the calling thread work too and claims
// chunks through an atomic counter, so nested calls from pool threads cannot deadlock.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace spdlog { class logger; }

namespace pacer {

class ThreadPool {
 public:
  // Starts one worker thread running `body`; the default is std::thread. A test passes one that
  // fails as the system does at its limit.
  using StartWorker = std::function<std::thread(std::function<void()> body)>;
  // 0 = available_cpus() (cpus.hpp: the affinity mask and cgroup quota). When the system refuses a thread (process or cgroup limit), the
  // threads already started are stopped and joined and InputError names [host] threads.
  explicit ThreadPool(unsigned threads = 0);
  ThreadPool(unsigned threads, const StartWorker& start_worker);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }  // workers + caller
  // Runs fn(i) for i in [0, n) spread over the pool and the caller; returns when all are done.
  // The first exception thrown by fn is rethrown here. max_threads (0 = all) caps how many
  // threads work on it, so a plugin can be given part of the shared pool.
  void parallel_for(size_t n, const std::function<void(size_t)>& fn, unsigned max_threads = 0);
  // Where an exception that escapes a worker's task is logged (null: stderr); the worker goes on,
  // nothing a task throws ends the process. The logger must outlive the pool.
  void set_log(spdlog::logger* log) { log_.store(log); }

  // While one is alive, parallel_for calls made on this thread are urgent: their helper tasks go
  // to the front of the queue, and helpers of ordinary loops leave at their next index so that a
  // worker picks the urgent ones up (the loop's own caller always finishes it). A proof's
  // critical path (compute_h, which the H MSM waits for) no longer queues behind long MSM loops.
  class Urgent {
   public:
    Urgent() { ++depth_; }
    ~Urgent() { --depth_; }
    Urgent(const Urgent&) = delete;
    Urgent& operator=(const Urgent&) = delete;
    static bool active() { return depth_ > 0; }

   private:
    static thread_local int depth_;
  };

  // While one is alive on a thread, parallel_for loops called there watch `paused` (a stage the
  // scheduler paused at a checkpoint): their helpers leave at the next index while it is set, so
  // a paused stage holds no pool thread that the stage it yielded to needs; the loop's caller
  // invites helpers back once it is clear. Helpers watch the same flag in loops nested in theirs.
  class PauseWatch {
   public:
    explicit PauseWatch(const std::atomic<bool>* paused) : outer_(current_) { current_ = paused; }
    ~PauseWatch() { current_ = outer_; }
    PauseWatch(const PauseWatch&) = delete;
    PauseWatch& operator=(const PauseWatch&) = delete;
    static const std::atomic<bool>* current() { return current_; }

   private:
    const std::atomic<bool>* outer_;
    static thread_local const std::atomic<bool>* current_;
  };

 private:
  struct Task {
    std::function<void()> fn;
    bool urgent;
  };
  void push(std::function<void()> task, bool urgent);
  void stop_workers();
  void worker_loop();
  std::vector<std::thread> workers_;
  std::deque<Task> queue_;
  std::atomic<size_t> urgent_queued_{0};  // urgent tasks not yet started
  std::atomic<spdlog::logger*> log_{nullptr};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
};

// fn(0..tasks) on the pool, or on this thread without one (math kernels take an optional pool).
inline void run_tasks(ThreadPool* pool, size_t tasks, const std::function<void(size_t)>& fn) {
  if (pool && tasks > 1) pool->parallel_for(tasks, fn);
  else for (size_t t = 0; t < tasks; ++t) fn(t);
}

}  // namespace pacer
