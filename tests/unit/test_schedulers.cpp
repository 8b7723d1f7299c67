// The scheduler plugins (greedy, throttled, staggered, adaptive), loaded as plugins and driven by
// the deterministic simulation of sim_engine.hpp: no threads, no wall clock.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "pacer/error.hpp"
#include "pacer/logging.hpp"
#include "pacer/membw_gate.hpp"
#include "pacer/plugin_loader.hpp"
#include "sim_engine.hpp"

using Catch::Matchers::Contains;

namespace {

const std::filesystem::path kRealPlugins = PACER_PLUGIN_BUILD_DIR;

struct Harness {
  sim::SimTime time;
  pacer::HostServices host;
  pacer::PluginRegistry registry{{kRealPlugins}};
  std::shared_ptr<pacer::Scheduler> scheduler;

  explicit Harness(const std::string& name, const std::string& params_toml = "") {
    host.log = pacer::make_logger(std::getenv("PACER_SIM_LOG") ? std::getenv("PACER_SIM_LOG") : "off");
    host.time = &time;
    std::istringstream text(params_toml);
    const toml::value table = toml::parse(text, "params");
    pacer::Params params(table, "[scheduler.params]");
    scheduler = registry.create_scheduler(name, params, host);
    params.reject_unknown();
  }
};

// 1 GB/s per membw stage up to 4 at once; past that each extra stage costs 15 % of the peak.
const sim::Bandwidth kKnee4 = sim::knee_model(4, 1e9, 0.15);
const auto kShape = sim::proof_shape(100e6, 60e6, 0.02);

}  // namespace

TEST_CASE("schedulers: greedy lets every membw stage run at once (the model's contention is real)", "[schedulers]") {
  Harness h("greedy");
  sim::Simulation s(*h.scheduler, h.time, kKnee4, kShape);
  const sim::Observed o = s.run(200, 16);
  CHECK(o.proofs_done == 200);
  CHECK(o.max_running_membw > 8);
}

TEST_CASE("schedulers: throttled never runs more membw stages than its tokens", "[schedulers]") {
  for (unsigned tokens : {1u, 2u, 3u}) {
    Harness h("throttled", "membw_tokens = " + std::to_string(tokens));
    sim::Simulation s(*h.scheduler, h.time, kKnee4, kShape);
    const sim::Observed o = s.run(200, 16);
    CHECK(o.proofs_done == 200);
    CHECK(o.max_running_membw == tokens);
    CHECK(o.pauses > 0);  // synthesis yielded to msm_g2 at checkpoints
  }
}

TEST_CASE("schedulers: throttled by rate never admits more bytes than rate times time plus burst and one stage",
          "[schedulers]") {
  const double rate = 2e9, burst = 50e6, largest = 100e6;
  Harness h("throttled", "membw_mb_per_s = 2000\nburst_mb = 50");
  sim::Simulation s(*h.scheduler, h.time, kKnee4, kShape);
  const sim::Observed o = s.run(100, 16);
  CHECK(o.proofs_done == 100);
  double worst = 0;
  for (size_t i = 0; i < o.admitted.size(); ++i) {
    double sum = 0;
    for (size_t j = i; j < o.admitted.size(); ++j) {
      sum += o.admitted[j].second;
      const double allowed = rate * (o.admitted[j].first - o.admitted[i].first) + burst + largest;
      worst = std::max(worst, sum / allowed);
    }
  }
  CHECK(worst <= 1.0 + 1e-9);
  // And the rate is really used: over the run, at least 80 % of rate * time was admitted.
  double total = 0;
  for (auto [t, b] : o.admitted) total += b;
  CHECK(total >= 0.8 * rate * (o.admitted.back().first - o.admitted.front().first));
}

TEST_CASE("schedulers: staggered never overlaps two membw stages", "[schedulers]") {
  Harness h("staggered");
  sim::Simulation s(*h.scheduler, h.time, kKnee4, kShape);
  const sim::Observed o = s.run(100, 16);
  CHECK(o.proofs_done == 100);
  CHECK(o.max_running_membw == 1);
}

TEST_CASE("schedulers: adaptive converges within 10% of the model's optimum past a knee", "[schedulers]") {
  for (unsigned knee : {2u, 4u, 7u}) {
    Harness h("adaptive");
    const sim::Bandwidth model = sim::knee_model(knee, 1e9, 0.15);
    sim::Simulation s(*h.scheduler, h.time, model, kShape);
    const sim::Observed o = s.run(2000, 32);
    REQUIRE(o.proofs_done == 2000);
    const double end = o.finished.back().first, from = end / 2;
    const double throughput = o.bytes_between(from, end) / (end - from);
    const double optimum = model(knee);
    INFO("knee " << knee << ": " << throughput / 1e9 << " GB/s of an optimum " << optimum / 1e9);
    CHECK(throughput >= 0.9 * optimum);
  }
}

TEST_CASE("schedulers: adaptive climbs fast where the knee is far, so a short run is not spent below it",
          "[schedulers]") {
  // Knee at 24 concurrent stages, 400 proofs with 32 in flight: the second half runs at 76 % of the
  // model's optimum (61 % when the first search climbed one token at a time).
  Harness h("adaptive");
  const sim::Bandwidth model = sim::knee_model(24, 1e9, 0.15);
  sim::Simulation s(*h.scheduler, h.time, model, kShape);
  const sim::Observed o = s.run(400, 32);
  const double end = o.finished.back().first;
  const double throughput = o.bytes_between(end / 2, end) / (end / 2);
  INFO(throughput / 1e9 << " GB/s of an optimum " << model(24) / 1e9);
  CHECK(throughput >= 0.7 * model(24));
}

TEST_CASE("schedulers: adaptive beats greedy where greedy overshoots the knee", "[schedulers]") {
  auto run = [](const std::string& name) {
    Harness h(name);
    sim::Simulation s(*h.scheduler, h.time, kKnee4, kShape);
    const sim::Observed o = s.run(1000, 32);
    const double end = o.finished.back().first;
    return o.bytes_between(end / 2, end) / (end / 2);
  };
  CHECK(run("adaptive") > 1.5 * run("greedy"));
}

TEST_CASE("schedulers: a bad parameter is one error naming the key and the range", "[schedulers]") {
  CHECK_THROWS_WITH(Harness("throttled", "membw_tokens = 0"), Contains("membw_tokens must be 1..1024"));
  CHECK_THROWS_WITH(Harness("throttled", "membw_tokens = 2\nmembw_mb_per_s = 100"),
                    Contains("give membw_tokens or membw_mb_per_s, not both"));
  CHECK_THROWS_WITH(Harness("staggered", "spacing = -1"), Contains("spacing must be 0..16"));
  CHECK_THROWS_WITH(Harness("adaptive", "max_tokens = 0"), Contains("max_tokens must be 1..1024"));
  CHECK_THROWS_WITH(Harness("adaptive", "tokens = 3"), Contains("tokens"));
  CHECK_THROWS_AS(Harness("throttled", "membw_tokens = 0"), pacer::InputError);
}

TEST_CASE("membw gate: a waiter of higher priority takes the slot at the holder's next checkpoint", "[schedulers]") {
  pacer::MembwGate gate(1);
  const pacer::StageTicket synth{1, pacer::Stage::synthesize, pacer::ResourceClass::membw, 100, 0};
  const pacer::StageTicket g2{1, pacer::Stage::msm_g2, pacer::ResourceClass::membw, 100, 1};
  bool synth_running = false, g2_running = false, resumed = false;
  gate.admit(synth, [&] { synth_running = true; });
  gate.admit(g2, [&] { g2_running = true; });
  CHECK(synth_running);
  CHECK_FALSE(g2_running);
  CHECK_FALSE(gate.checkpoint(synth, [&] { resumed = true; }));
  CHECK(g2_running);
  CHECK_FALSE(resumed);
  CHECK(gate.holders() == 1);
  gate.finished(g2);
  CHECK(resumed);
  CHECK(gate.max_holders() == 1);
}
