#pragma once
// Admission of proofs: at most `max_in_flight` at once, and no more host memory than the budget
// (the first proof in flight is always let in, so that one larger than the budget still runs,
// alone). First come, first served: a proof that does not fit holds back those behind it.
//
// Item: a shared pointer to something with a `bytes` member (its admission estimate).
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "pacer/host_memory.hpp"

namespace pacer {

template <class Item>
class Admission {
 public:
  Admission(unsigned max_in_flight, uint64_t budget_bytes) : max_(std::max(1u, max_in_flight)), budget_(budget_bytes) {}

  unsigned max_in_flight() const { return max_; }
  uint64_t budget() const { return budget_; }

  // Queues `item`; returns those to start now (it, or none).
  std::vector<Item> enqueue(Item item) {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(item));
    ++unfinished_;
    return take_startable_locked();
  }
  // A started item has ended: returns those its place lets start. The last call for the last
  // item lets wait_idle() return, so after it the caller must not touch what owns this.
  std::vector<Item> ended(uint64_t bytes) {
    std::lock_guard lock(mu_);
    --in_flight_;
    bytes_in_flight_ -= bytes;
    auto start = take_startable_locked();
    --unfinished_;
    idle_.notify_all();
    return start;
  }
  // Until every enqueued item has ended.
  void wait_idle() {
    std::unique_lock lock(mu_);
    idle_.wait(lock, [&] { return unfinished_ == 0; });
  }

 private:
  std::vector<Item> take_startable_locked() {
    std::vector<Item> start;
    while (!queue_.empty() && in_flight_ < max_ &&
           (in_flight_ == 0 || bytes_in_flight_ + queue_.front()->bytes <= budget_)) {
      start.push_back(std::move(queue_.front()));
      queue_.pop_front();
      ++in_flight_;
      bytes_in_flight_ += start.back()->bytes;
    }
    return start;
  }

  const unsigned max_;
  const uint64_t budget_;
  std::mutex mu_;
  std::condition_variable idle_;
  std::deque<Item> queue_;
  unsigned in_flight_ = 0;
  uint64_t bytes_in_flight_ = 0;
  size_t unfinished_ = 0;
};

}  // namespace pacer
