#pragma once
// The one CPU pool of a host process. parallel_for lets the calling thread work too and claims
// chunks through an atomic counter, so nested calls from pool threads cannot deadlock.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pacer {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads = 0);  // 0 = hardware_concurrency
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }  // workers + caller
  // Runs fn(i) for i in [0, n) spread over the pool and the caller; returns when all are done.
  // The first exception thrown by fn is rethrown here. max_threads (0 = all) caps how many
  // threads work on it, so a plugin can be given part of the shared pool.
  void parallel_for(size_t n, const std::function<void(size_t)>& fn, unsigned max_threads = 0);
  // Fire-and-forget task (used for overlapping stages of one proof).
  void submit(std::function<void()> task);

 private:
  void worker_loop();
  std::vector<std::thread> workers_;
  std::deque<std::function<void()>> queue_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
};

}  // namespace pacer
