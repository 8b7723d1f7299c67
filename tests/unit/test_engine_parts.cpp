// The engine's parts on their own (framework/src/engine/): the lane pool, admission, a running
// stage's checkpoints and the graph of a proof. test_engine*.cpp check them together, through
// the Prover.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "engine/admission.hpp"
#include "engine/lane_pool.hpp"
#include "engine/proof_graph.hpp"
#include "engine/stage_run.hpp"
#include "pacer/error.hpp"

using namespace pacer;

namespace {

BackendInfo backend_with(unsigned lanes, std::vector<unsigned> lane_devices) {
  BackendInfo info;
  info.name = "test";
  info.lanes = lanes;
  info.lane_devices = std::move(lane_devices);
  return info;
}

// Records every grant, in order.
struct Grants {
  std::mutex mu;
  std::vector<std::optional<Lane>> got;
  LanePool::Grant grant() {
    return [this](std::optional<Lane> lane) {
      std::lock_guard lock(mu);
      got.push_back(lane);
    };
  }
};

struct Item {
  uint64_t bytes;
  int id;
};

// A scheduler whose checkpoint answers what the test says, and keeps the resume it was given.
struct ScriptedScheduler final : Scheduler {
  std::atomic<bool> go{true};
  std::atomic<int> asked{0};
  bool resume_before_answering = false;
  std::mutex mu;
  std::function<void()> pending_resume;
  void admit(const StageTicket&, std::function<void()> start) override { start(); }
  bool checkpoint(const StageTicket&, std::function<void()> resume) override {
    ++asked;
    if (go) return true;
    if (resume_before_answering) {
      std::thread(resume).join();  // "never from inside this call": another thread, before the answer
      return false;
    }
    std::lock_guard lock(mu);
    pending_resume = std::move(resume);
    return false;
  }
  void finished(const StageTicket&, const StageStats&) override {}
  bool resume_now() {
    std::function<void()> r;
    {
      std::lock_guard lock(mu);
      r = std::exchange(pending_resume, nullptr);
    }
    if (r) r();
    return bool(r);
  }
};

}  // namespace

TEST_CASE("lane pool: lanes go to the least busy device, waiters are served in order, a failed device's lanes never return",
          "[engine]") {
  LanePool pool(backend_with(4, {0, 1, 0, 1}), nullptr);
  Grants g;
  for (int i = 0; i < 4; ++i) pool.acquire(g.grant());
  REQUIRE(g.got.size() == 4);
  CHECK(pool.device_of(*g.got[0]) != pool.device_of(*g.got[1]));  // the second proof goes to the other device
  pool.acquire(g.grant());  // no lane free: waits
  pool.acquire(g.grant());
  CHECK(g.got.size() == 4);
  pool.release(*g.got[2]);  // the first waiter gets it
  REQUIRE(g.got.size() == 5);
  CHECK(g.got[4] == g.got[2]);

  pool.retire_device(pool.device_of(*g.got[0]), "test failure");
  CHECK(pool.in_service() == 2);
  CHECK(pool.health().failed_devices == std::vector<unsigned>{pool.device_of(*g.got[0])});
  const size_t before = g.got.size();
  pool.release(*g.got[0]);  // a lane of the failed device: not handed on
  CHECK(g.got.size() == before);
  pool.retire_device(pool.device_of(*g.got[0]), "again");  // once only
  CHECK(pool.in_service() == 2);
}

TEST_CASE("lane pool: with every device failed, waiting and later proofs get no lane at once", "[engine]") {
  LanePool pool(backend_with(1, {}), nullptr);
  Grants g;
  pool.acquire(g.grant());
  pool.acquire(g.grant());  // waits
  REQUIRE(g.got.size() == 1);
  pool.retire_device(0, "gone");
  REQUIRE(g.got.size() == 2);
  CHECK_FALSE(g.got[1].has_value());
  pool.acquire(g.grant());
  REQUIRE(g.got.size() == 3);
  CHECK_FALSE(g.got[2].has_value());
  CHECK(pool.health().in_service == 0);
}

TEST_CASE("lane pool: a backend with no lanes, or devices that do not match its lanes, is refused", "[engine]") {
  CHECK_THROWS_AS(LanePool(backend_with(0, {}), nullptr), FailedError);
  CHECK_THROWS_AS(LanePool(backend_with(2, {0}), nullptr), FailedError);
  CHECK_THROWS_AS(LanePool(backend_with(2, {0, 5}), nullptr), FailedError);
}

TEST_CASE("admission: at most N in flight and within the memory budget, one alone always, first come first served",
          "[engine]") {
  Admission<std::shared_ptr<Item>> admission(2, 100);
  auto item = [](uint64_t bytes, int id) { return std::make_shared<Item>(Item{bytes, id}); };
  CHECK(admission.enqueue(item(150, 1)).size() == 1);  // over the budget, but alone: admitted
  CHECK(admission.enqueue(item(10, 2)).empty());        // 150 + 10 > 100
  CHECK(admission.enqueue(item(1, 3)).empty());         // behind 2, although it would fit
  auto started = admission.ended(150);
  REQUIRE(started.size() == 2);  // 2 and 3: 11 bytes, 2 in flight
  CHECK(started[0]->id == 2);
  CHECK(started[1]->id == 3);
  CHECK(admission.enqueue(item(1, 4)).empty());  // 2 in flight already
  CHECK(admission.ended(10).size() == 1);
  std::atomic<bool> idle{false};
  std::thread waiter([&] {
    admission.wait_idle();
    idle = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_FALSE(idle);
  CHECK(admission.ended(1).empty());
  CHECK(admission.ended(1).empty());
  waiter.join();
  CHECK(idle);
}

TEST_CASE("stage run: a paused owner waits for resume, a helper never waits, a resume before the answer is no pause",
          "[engine]") {
  ScriptedScheduler sched;
  StageTicket ticket;
  {
    sched.go = false;
    std::atomic<bool> owner_back{false};
    // The owner is the thread that made the run.
    std::shared_ptr<StageRun> owned;
    std::atomic<bool> made{false};
    std::thread owner([&] {
      owned = std::make_shared<StageRun>(sched, ticket);
      made = true;
      owned->checkpoint();  // paused: waits here
      owner_back = true;
    });
    while (!made || sched.asked == 0) std::this_thread::yield();
    while (!owned->paused_flag()->load()) std::this_thread::yield();
    owned->checkpoint();  // a helper (this thread): the stage is paused, so it returns at once
    CHECK_FALSE(owner_back);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK_FALSE(owner_back);
    CHECK(sched.resume_now());
    owner.join();
    CHECK(owner_back);
    CHECK(owned->paused() > std::chrono::nanoseconds(0));
    owned->wait_resumed();  // not paused: returns
  }
  {
    sched.go = false;
    sched.resume_before_answering = true;
    auto run = std::make_shared<StageRun>(sched, ticket);
    run->checkpoint();  // resumed before it answered false: goes on, no pause
    CHECK_FALSE(run->paused_flag()->load());
    CHECK(run->paused() == std::chrono::nanoseconds(0));
  }
}

TEST_CASE("proof graph: every node waits only for nodes before it, the lane nodes are the backend calls, assembly "
          "waits for every MSM", "[engine]") {
  uint16_t lane = 0;
  for (int n = 0; n < kNodes; ++n) {
    INFO("node " << n);
    CHECK((kGraph[n].deps >> n) == 0);  // no dependency on itself or a later node: the order is a schedule
    if (kGraph[n].needs_lane) lane |= bit(Node(n));
  }
  CHECK(lane == kLaneNodes);
  for (const Node msm : {kMsmG2, kMsmA, kMsmB1, kMsmC, kMsmH}) CHECK((kGraph[kAssemble].deps & bit(msm)) != 0);
  CHECK(kGraph[kRelease].deps == bit(kAssemble));
}

TEST_CASE("proof graph: a stage's failure names the proof and stage and keeps its exit code", "[engine]") {
  auto what = [](std::exception_ptr e) -> std::pair<std::string, ExitCode> {
    try {
      std::rethrow_exception(e);
    } catch (const Error& err) {
      return {err.what(), err.code()};
    }
  };
  const auto bad = what(name_failure(std::make_exception_ptr(InputError("bad witness")), 7, kGraph[kMsmC]));
  CHECK(bad.first == "proof 7: stage msm_g1 (C): bad witness");
  CHECK(bad.second == ExitCode::bad_input);
  const auto failed = what(name_failure(std::make_exception_ptr(std::runtime_error("boom")), 8, kGraph[kSynthesize]));
  CHECK(failed.first == "proof 8: stage synthesize: boom");
  CHECK(failed.second == ExitCode::failed);
  const auto oom = name_failure(std::make_exception_ptr(std::bad_alloc()), 9, kGraph[kLoad]);
  CHECK_THROWS_AS(std::rethrow_exception(oom), std::bad_alloc);
}
