// Plugins on the C ABI (pacer/plugin_abi.h), built by the host's compilers from tests/plugins: the C
// allocator and the C++ scheduler of examples/, a C plugin of another major version, and a C++
// allocator on the C ABI that throws. (tests/plugins/c_abi_clang.sh builds them with clang and runs
// them in `pacer`.)
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>

#include "c_plugin_host.hpp"
#include "pacer/error.hpp"
#include "pacer/logging.hpp"
#include "pacer/plugin_loader.hpp"
#include "sim_engine.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

const fs::path kTestPlugins = PACER_TEST_PLUGIN_DIR;

const pacer::PluginCandidate* candidate(const pacer::PluginRegistry& reg, const std::string& file_name) {
  for (const auto& c : reg.candidates())
    if (c.file.filename() == file_name) return &c;
  return nullptr;
}

// A params table as the config file would give it: values carry the file name "params" and a line.
struct Table {
  toml::value value;
  pacer::Params params;
  Table(const std::string& text, const char* where)
      : value([&] {
          std::istringstream in(text);
          return toml::parse(in, "params");
        }()),
        params(value, where) {}
};

struct Rig {
  sim::SimTime time;
  pacer::HostServices host;
  pacer::PluginRegistry registry{{kTestPlugins}};
  Rig() {
    host.log = pacer::make_logger("off");
    host.time = &time;
  }
  std::shared_ptr<pacer::Allocator> allocator(const std::string& name, const std::string& params = "") {
    Table t(params, "[allocator.params]");
    return registry.create_allocator(name, t.params, host);
  }
  std::shared_ptr<pacer::Scheduler> scheduler(const std::string& name, const std::string& params = "") {
    Table t(params, "[scheduler.params]");
    return registry.create_scheduler(name, t.params, host);
  }
};

}  // namespace

TEST_CASE("C ABI: the host loads its own and older minor versions, and refuses another major or a newer minor",
          "[plugins][cabi]") {
  using pacer::cabi::version_refusal;
  CHECK_FALSE(version_refusal(PACER_PLUGIN_ABI_MAJOR, PACER_PLUGIN_ABI_MINOR));
  CHECK_FALSE(version_refusal(1, 0, 1, 3));  // an older minor knows a prefix of every struct
  CHECK_THAT(*version_refusal(1, 4, 1, 3), Contains("C plugin ABI 1.4 is newer than this host's 1.3"));
  CHECK_THAT(*version_refusal(2, 0, 1, 3), Contains("C plugin ABI 2.0 but this host speaks 1.3"));
  CHECK_THAT(*version_refusal(0, 9, 1, 0), Contains("rebuild the plugin against this Pacer's pacer/plugin_abi.h"));
}

TEST_CASE("C ABI: a descriptor or table short of what its version promises is refused, naming what is missing",
          "[plugins][cabi]") {
  using pacer::cabi::descriptor_refusal;
  pacer_allocator_api table{};
  table.struct_size = sizeof table;
  table.create = [](const pacer_params*, const pacer_host*, pacer_allocator**, pacer_error*) { return 0; };
  table.allocate = [](pacer_allocator*, size_t, const pacer_alloc_hints*, pacer_block*, pacer_error*) { return 0; };
  table.deallocate = [](pacer_allocator*, const pacer_block*) {};
  table.stats = [](pacer_allocator*, pacer_alloc_stats*, pacer_error*) { return 0; };
  table.destroy = [](pacer_allocator*) {};
  pacer_plugin_descriptor d{sizeof d, 1, 0, PACER_KIND_ALLOCATOR, "mine", "1.0", "test", &table};
  CHECK_FALSE(descriptor_refusal(d));

  auto refusal = [&](auto change) {
    pacer_plugin_descriptor copy = d;
    pacer_allocator_api api = table;
    copy.api = &api;
    change(copy, api);
    const auto r = descriptor_refusal(copy);
    return r ? *r : std::string("(accepted)");
  };
  CHECK_THAT(refusal([](auto& c, auto&) { c.struct_size = 16; }), Contains("its descriptor has 16 bytes"));
  CHECK_THAT(refusal([](auto& c, auto&) { c.kind = PACER_KIND_BACKEND; }),
             Contains("backends use the C++ interface"));
  CHECK_THAT(refusal([](auto& c, auto&) { c.kind = 9; }), Contains("unknown plugin kind 9"));
  CHECK_THAT(refusal([](auto& c, auto&) { c.name = ""; }), Contains("empty name"));
  CHECK_THAT(refusal([](auto& c, auto&) { c.api = nullptr; }), Contains("no function table"));
  CHECK_THAT(refusal([](auto&, auto& a) { a.struct_size = 8; }), Contains("its allocator table has 8 bytes"));
  CHECK_THAT(refusal([](auto&, auto& a) { a.stats = nullptr; }), Equals("its allocator table has no stats function"));
}

TEST_CASE("C ABI: a plugin of another major version is refused with its reason, and asking for it repeats it",
          "[plugins][cabi]") {
  Rig rig;
  rig.registry.load_all();
  const auto* wrong = candidate(rig.registry, "libpacer_test_c_wrong_major.so");
  REQUIRE(wrong != nullptr);
  CHECK(wrong->c_abi);
  CHECK_FALSE(wrong->loaded);
  CHECK(wrong->abi == 99);
  const std::string reason = "C plugin ABI 99.0 but this host speaks " + std::to_string(PACER_PLUGIN_ABI_MAJOR) + "." +
                             std::to_string(PACER_PLUGIN_ABI_MINOR) +
                             " (another major version is another interface): rebuild the plugin against this "
                             "Pacer's pacer/plugin_abi.h";
  CHECK_THAT(wrong->refusal, Equals(reason));
  CHECK_THROWS_WITH(rig.allocator("c_wrong_major"), Equals("allocator plugin 'c_wrong_major' was refused: " +
                                                           wrong->file.string() + ": " + reason));
  // Its neighbours on the C ABI load, and say which ABI they speak.
  for (const char* file : {"libpacer_test_c_counting.so", "libpacer_test_slots.so", "libpacer_test_c_throwing.so"}) {
    const auto* c = candidate(rig.registry, file);
    REQUIRE(c != nullptr);
    CHECK(c->loaded);
    CHECK(c->c_abi);
    CHECK(c->abi == PACER_PLUGIN_ABI_MAJOR);
  }
}

TEST_CASE("C ABI: the C allocator allocates, frees and counts, and its params follow the host's rules",
          "[plugins][cabi]") {
  Rig rig;
  auto alloc = rig.allocator("c_counting", "log_every = 2\nprefault = true");
  pacer::AllocHints hints;
  hints.align = 256;
  const pacer::Block a = alloc->allocate(10000, hints);
  REQUIRE(a.data != nullptr);
  CHECK(a.bytes >= 10000);
  CHECK(reinterpret_cast<uintptr_t>(a.data) % 256 == 0);
  CHECK(a.page_bytes == 4096);
  std::fill(a.data, a.data + a.bytes, std::byte{7});
  const pacer::Block b = alloc->allocate(1, {});
  auto stats = alloc->stats();
  CHECK(stats.allocations == 2);
  CHECK(stats.live_bytes == a.bytes + b.bytes);
  alloc->deallocate(a);
  alloc->deallocate(b);
  stats = alloc->stats();
  CHECK(stats.live_bytes == 0);
  CHECK(stats.peak_bytes == a.bytes + b.bytes);
  CHECK(stats.fresh_bytes == 0);  // not measured: stays 0

  // A failure at run time is a FailedError with the plugin's message.
  CHECK_THROWS_AS(alloc->allocate(uint64_t(1) << 62, {}), pacer::FailedError);
  CHECK_THROWS_WITH(alloc->allocate(uint64_t(1) << 62, {}), Contains("c_counting allocator: out of memory"));

  // A wrong type, a bad value and a key nobody reads are the user's to fix, with file and line.
  CHECK_THROWS_AS(rig.allocator("c_counting", "log_every = 'often'"), pacer::InputError);
  CHECK_THROWS_WITH(rig.allocator("c_counting", "log_every = 'often'"),
                    Contains("params:1: [allocator.params] log_every must be an integer, got string"));
  CHECK_THROWS_WITH(rig.allocator("c_counting", "\nlog_every = -1"),
                    Contains("params:2: [allocator.params] log_every must be >= 0"));
  CHECK_THROWS_AS(rig.allocator("c_counting", "log_evry = 1"), pacer::InputError);
  CHECK_THROWS_WITH(rig.allocator("c_counting", "log_evry = 1"), Contains("log_evry"));
}

TEST_CASE("C ABI: exceptions in a C++ plugin on the C ABI reach the host as error codes with their messages",
          "[plugins][cabi]") {
  Rig rig;
  CHECK_THROWS_AS(rig.allocator("c_throwing", "throw_in = 'create'"), pacer::FailedError);
  CHECK_THROWS_WITH(rig.allocator("c_throwing", "throw_in = 'create'"),
                    Contains("allocator plugin 'c_throwing'") && Contains("failed to start") &&
                        Contains("c_throwing: injected fault in create"));
  CHECK_THROWS_AS(rig.allocator("c_throwing", "throw_in = 'create_input'"), pacer::InputError);

  auto in_allocate = rig.allocator("c_throwing", "throw_in = 'allocate'");
  CHECK_THROWS_AS(in_allocate->allocate(64, {}), pacer::FailedError);
  CHECK_THROWS_WITH(in_allocate->allocate(64, {}), Equals("c_throwing: injected fault in allocate"));
  CHECK_THROWS_WITH(rig.allocator("c_throwing", "throw_in = 'other'")->allocate(64, {}),
                    Equals("an exception that is not a std::exception"));
  CHECK_THROWS_WITH(rig.allocator("c_throwing", "throw_in = 'stats'")->stats(),
                    Equals("c_throwing: injected fault in stats"));
  auto fine = rig.allocator("c_throwing");
  const pacer::Block block = fine->allocate(64, {});
  CHECK(block.bytes == 64);
  fine->deallocate(block);
}

TEST_CASE("C ABI: the slots scheduler hands out membw slots, passes them on at finished, and yields on the host's "
          "timer",
          "[plugins][cabi]") {
  Rig rig;
  auto sched = rig.scheduler("slots", "membw_slots = 1\nyield_us = 100");
  pacer::StageTicket membw;
  membw.cls = pacer::ResourceClass::membw;
  pacer::StageTicket cpu;
  cpu.cls = pacer::ResourceClass::cpu;
  int started_a = 0, started_b = 0, started_c = 0, resumed = 0;
  sched->admit(membw, [&] { ++started_a; });
  sched->admit(membw, [&] { ++started_b; });
  sched->admit(cpu, [&] { ++started_c; });
  CHECK(started_a == 1);
  CHECK(started_b == 0);  // waits for the one slot
  CHECK(started_c == 1);  // not membw: at once

  // A waiting stage makes the running one yield: paused, resumed by the host's timer 100 us later.
  CHECK_FALSE(sched->checkpoint(membw, [&] { ++resumed; }));
  REQUIRE(rig.time.timers.size() == 1);
  CHECK(rig.time.timers.begin()->first.first == sim::SimTime::at(100e-6));
  rig.time.timers.begin()->second();
  CHECK(resumed == 1);
  CHECK(sched->checkpoint(cpu, [] { FAIL("a cpu stage is never paused"); }));

  sched->finished(membw, {});
  CHECK(started_b == 1);  // the slot went to the waiting stage
  CHECK(sched->checkpoint(membw, [] { FAIL("nobody waits: no pause"); }));
  sched->finished(membw, {});
  sched->finished(cpu, {});

  CHECK_THROWS_AS(rig.scheduler("slots", "membw_slots = 0"), pacer::InputError);
  CHECK_THROWS_WITH(rig.scheduler("slots", "membw_slots = 0"), Contains("membw_slots must be at least 1"));
}

TEST_CASE("C ABI: under the simulation, the slots scheduler keeps membw stages within its slots and every proof ends",
          "[plugins][cabi]") {
  Rig rig;
  auto sched = rig.scheduler("slots", "membw_slots = 2\nyield_us = 500");
  sim::Simulation s(*sched, rig.time, sim::knee_model(4, 1e9, 0.15), sim::proof_shape(100e6, 60e6, 0.02));
  const sim::Observed o = s.run(50, 8);
  CHECK(o.proofs_done == 50);
  CHECK(o.max_running_membw <= 2);
  CHECK(o.pauses > 0);
}

TEST_CASE("C ABI: the host lends its log, clock and allocator as C tables", "[plugins][cabi]") {
  Rig rig;
  auto plain = rig.allocator("c_counting");
  rig.host.allocator = plain.get();
  rig.time.seconds = 2;
  const pacer::cabi::HostBridge bridge(rig.host);
  const pacer_host* h = bridge.view();
  CHECK(h->struct_size == sizeof(pacer_host));
  CHECK(h->now_ns(h->ctx) == 2'000'000'000);
  CHECK(h->log_enabled(h->ctx, PACER_LOG_ERROR) == 0);  // the rig's logger is off
  h->log(h->ctx, PACER_LOG_ERROR, "not shown");
  REQUIRE(h->allocator != nullptr);
  CHECK((h->staging == nullptr || h->staging->ctx == plain.get()));

  pacer_alloc_hints hints{sizeof hints, PACER_USAGE_WITNESS, 0, 64};
  pacer_block block{};
  block.struct_size = sizeof block;
  char text[256] = {};
  pacer_error err{sizeof err, 0, text, sizeof text};
  REQUIRE(h->allocator->allocate(h->allocator->ctx, 1000, &hints, &block, &err) == PACER_OK);
  CHECK(block.bytes >= 1000);
  pacer_alloc_stats stats{};
  stats.struct_size = sizeof stats;
  REQUIRE(h->allocator->stats(h->allocator->ctx, &stats, &err) == PACER_OK);
  CHECK(stats.live_bytes == block.bytes);
  h->allocator->deallocate(h->allocator->ctx, &block);
  // An error inside the host comes back as a code and a message, not as an exception.
  CHECK(h->allocator->allocate(h->allocator->ctx, uint64_t(1) << 62, &hints, &block, &err) == PACER_ERR_FAILED);
  CHECK_THAT(std::string(text), Contains("out of memory"));
}
