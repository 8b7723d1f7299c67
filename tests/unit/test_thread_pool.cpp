// ThreadPool: parallel_for covers every index once, rethrows, and urgent loops get workers that
// are busy helping an ordinary loop.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "pacer/thread_pool.hpp"

using namespace pacer;
using namespace std::chrono_literals;

TEST_CASE("parallel_for runs every index once and rethrows the first error", "[pool]") {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> hits(1000);
  pool.parallel_for(hits.size(), [&](size_t i) { hits[i].fetch_add(1); });
  for (const auto& h : hits) REQUIRE(h.load() == 1);
  REQUIRE_THROWS_AS(pool.parallel_for(10, [](size_t i) { if (i == 7) throw std::runtime_error("seven"); }),
                    std::runtime_error);
}

TEST_CASE("an urgent parallel_for takes workers from a long ordinary one", "[pool]") {
  ThreadPool pool(3);  // two workers and the caller
  const size_t long_n = 400;
  std::atomic<size_t> long_done{0};
  std::thread ordinary([&] {
    pool.parallel_for(long_n, [&](size_t) {
      std::this_thread::sleep_for(2ms);
      long_done.fetch_add(1);
    });
  });
  std::this_thread::sleep_for(30ms);  // both workers are now helping the ordinary loop

  std::mutex mu;
  std::set<std::thread::id> urgent_threads;
  size_t long_done_when_urgent_finished = 0;
  {
    const ThreadPool::Urgent urgent;
    pool.parallel_for(16, [&](size_t) {
      {
        std::lock_guard lock(mu);
        urgent_threads.insert(std::this_thread::get_id());
      }
      std::this_thread::sleep_for(5ms);
    });
    long_done_when_urgent_finished = long_done.load();
  }
  ordinary.join();
  REQUIRE(long_done.load() == long_n);
  // Without the yield the workers would stay in the ordinary loop (~270 ms more) and the urgent
  // loop would run on its caller alone.
  CHECK(urgent_threads.size() >= 2);
  CHECK(long_done_when_urgent_finished < long_n);
}

TEST_CASE("a paused stage's loop hands its helpers to other work and gets them back on resume", "[pool]") {
  ThreadPool pool(4);  // three workers and the caller
  std::atomic<bool> paused{false}, resumed{false};
  std::mutex mu;
  std::set<std::thread::id> after_resume;
  std::thread::id owner;
  std::atomic<size_t> done{0};
  std::thread stage([&] {
    owner = std::this_thread::get_id();
    const ThreadPool::PauseWatch watch(&paused);
    pool.parallel_for(300, [&](size_t) {
      // The owner waits while paused, as StageRun's owner does at a checkpoint.
      if (std::this_thread::get_id() == owner)
        while (paused.load()) std::this_thread::sleep_for(1ms);
      if (resumed.load()) {
        std::lock_guard lock(mu);
        after_resume.insert(std::this_thread::get_id());
      }
      std::this_thread::sleep_for(2ms);
      done.fetch_add(1);
    });
  });
  std::this_thread::sleep_for(20ms);  // the three workers now help the stage's loop
  paused = true;
  std::this_thread::sleep_for(10ms);  // each leaves after its current index

  std::set<std::thread::id> other_threads;
  pool.parallel_for(24, [&](size_t) {
    {
      std::lock_guard lock(mu);
      other_threads.insert(std::this_thread::get_id());
    }
    std::this_thread::sleep_for(3ms);
  });
  const size_t done_while_paused = done.load();
  std::this_thread::sleep_for(10ms);
  CHECK(done.load() == done_while_paused);  // nobody works on a paused stage

  resumed = true;
  paused = false;
  stage.join();
  REQUIRE(done.load() == 300);
  // Before: the paused loop's helpers blocked in it, and the other loop ran on its caller alone.
  CHECK(other_threads.size() == 4);
  CHECK(after_resume.size() >= 3);  // the owner invited helpers back
}
