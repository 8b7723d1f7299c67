// The plugin loader against real plugins (allocator "plain", scheduler "greedy") and broken ones
// built for the purpose in tests/plugins (wrong ABI, unknown kind, throwing factories, duplicate
// name, not a plugin, unresolved symbol).
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "pacer/config.hpp"
#include "pacer/elf_exports.hpp"
#include "pacer/error.hpp"
#include "pacer/logging.hpp"
#include "pacer/plugin_loader.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

const fs::path kRealPlugins = PACER_PLUGIN_BUILD_DIR;
const fs::path kTestPlugins = PACER_TEST_PLUGIN_DIR;

const pacer::PluginCandidate* candidate(const pacer::PluginRegistry& reg, const std::string& file_name) {
  for (const auto& c : reg.candidates())
    if (c.file.filename() == file_name) return &c;
  return nullptr;
}

// As the loader's messages write an ABI number (a hash: hex reads better than decimal).
std::string hex_abi(uint32_t abi) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", abi);
  return text;
}

pacer::Params no_params(const char* where) { return pacer::Params(toml::table{}, where); }

pacer::HostServices quiet_host() {
  pacer::HostServices host;
  host.log = pacer::make_logger("off");
  return host;
}

}  // namespace

TEST_CASE("plugins: a plugin is loaded only when a command asks for its name, known from its file", "[plugins]") {
  // PACER_PLUGIN exports the name as data: read from the file, without loading the library.
  const auto name = pacer::elf_exported_bytes((kRealPlugins / "libpacer_allocator_plain.so").string(),
                                              "pacer_plugin_name", 65);
  REQUIRE(name.has_value());
  CHECK(*name == std::string("plain", 6));  // with its NUL
  CHECK_FALSE(pacer::elf_exported_bytes((kRealPlugins / "libpacer_allocator_plain.so").string(), "no_such_symbol", 8));

  pacer::PluginRegistry reg({kRealPlugins});
  const auto* plain = candidate(reg, "libpacer_allocator_plain.so");
  const auto* thp = candidate(reg, "libpacer_allocator_thp.so");
  REQUIRE(plain != nullptr);
  REQUIRE(thp != nullptr);
  CHECK(plain->pending);
  CHECK_FALSE(plain->loaded);
  CHECK(plain->name == "plain");
  CHECK(plain->kind == pacer::PluginKind::allocator);
  CHECK_THAT(reg.available(pacer::PluginKind::allocator), Catch::VectorContains(std::string("thp")));
  auto host = quiet_host();
  CHECK(reg.create_allocator("plain", no_params("[allocator.params]"), host) != nullptr);
  CHECK(plain->loaded);
  CHECK_FALSE(plain->pending);
  CHECK(thp->pending);  // never asked for: never loaded
  CHECK_FALSE(thp->loaded);
  reg.load_all();
  CHECK(thp->loaded);
}

TEST_CASE("plugins: the real plain and greedy plugins load and report themselves", "[plugins]") {
  pacer::PluginRegistry reg({kRealPlugins});
  reg.load_all();
  REQUIRE(reg.search_path() == std::vector<fs::path>{kRealPlugins});
  const auto* plain = candidate(reg, "libpacer_allocator_plain.so");
  REQUIRE(plain != nullptr);
  CHECK(plain->loaded);
  CHECK(plain->refusal.empty());
  CHECK(plain->kind == pacer::PluginKind::allocator);
  CHECK(plain->name == "plain");
  CHECK(plain->abi == pacer::kCxxPluginAbi);
  CHECK_FALSE(plain->version.empty());
  const auto* greedy = candidate(reg, "libpacer_scheduler_greedy.so");
  REQUIRE(greedy != nullptr);
  CHECK(greedy->loaded);
  CHECK(greedy->kind == pacer::PluginKind::scheduler);
  CHECK(greedy->name == "greedy");
  CHECK_THAT(reg.available(pacer::PluginKind::allocator), Catch::VectorContains(std::string("plain")));
  CHECK_THAT(reg.available(pacer::PluginKind::scheduler), Catch::VectorContains(std::string("greedy")));
}

TEST_CASE("plugins: plain allocator grants aligned 4 KiB-page blocks and keeps exact stats", "[plugins]") {
  pacer::PluginRegistry reg({kRealPlugins});
  auto host = quiet_host();
  auto alloc = reg.create_allocator("plain", no_params("[allocator.params]"), host);
  REQUIRE(alloc);

  pacer::AllocHints small_hints;
  small_hints.align = 256;
  const pacer::Block small = alloc->allocate(1000, small_hints);
  REQUIRE(small.data != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(small.data) % 256 == 0);
  CHECK(small.bytes >= 1000);
  CHECK(small.page_bytes == 4096);
  CHECK_FALSE(small.pinned);

  pacer::AllocHints big_hints;
  big_hints.prefault = true;
  const pacer::Block big = alloc->allocate(8 << 20, big_hints);  // mmap path, prefaulted
  REQUIRE(big.data != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(big.data) % 4096 == 0);
  CHECK(big.bytes == (8u << 20));
  big.data[big.bytes - 1] = std::byte{7};

  auto s = alloc->stats();
  CHECK(s.live_bytes == small.bytes + big.bytes);
  CHECK(s.peak_bytes == small.bytes + big.bytes);
  CHECK(s.allocations == 2);
  CHECK(s.page_faults > 0);  // touching 2048 fresh pages faults

  alloc->deallocate(big);
  alloc->deallocate(small);
  s = alloc->stats();
  CHECK(s.live_bytes == 0);
  CHECK(s.peak_bytes == small.bytes + big.bytes);

  SECTION("stats stay exact under concurrent use") {
    constexpr int kThreads = 4, kRounds = 500;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < kRounds; ++i) alloc->deallocate(alloc->allocate(64 + i, {}));
      });
    for (auto& th : threads) th.join();
    CHECK(alloc->stats().live_bytes == 0);
    CHECK(alloc->stats().allocations == 2 + kThreads * kRounds);
  }
}

TEST_CASE("plugins: a plugin's misspelt or mistyped param is an InputError after its factory", "[plugins]") {
  pacer::PluginRegistry reg({kRealPlugins});
  auto host = quiet_host();
  const pacer::Params typo(toml::table{{"prefualt", true}}, "[allocator.params]");
  CHECK_THROWS_AS(reg.create_allocator("plain", typo, host), pacer::InputError);
  CHECK_THROWS_WITH(reg.create_allocator("plain", typo, host),
                    Equals("unknown key 'prefualt' in [allocator.params] (known: mmap_threshold, prefault, release_backlog_mb)"));
  const pacer::Params wrong(toml::table{{"prefault", "yes"}}, "[allocator.params]");
  CHECK_THROWS_WITH(reg.create_allocator("plain", wrong, host), Contains("prefault must be true or false, got string"));
  const pacer::Params ok(toml::table{{"prefault", true}, {"mmap_threshold", 65536}}, "[allocator.params]");
  CHECK(reg.create_allocator("plain", ok, host) != nullptr);
  const pacer::Params greedy_extra(toml::table{{"tokens", 2}}, "[scheduler.params]");
  CHECK_THROWS_WITH(reg.create_scheduler("greedy", greedy_extra, host),
                    Equals("unknown key 'tokens' in [scheduler.params] (this plugin takes no params)"));
}

TEST_CASE("plugins: greedy admits at once and never pauses", "[plugins]") {
  pacer::PluginRegistry reg({kRealPlugins});
  auto host = quiet_host();
  auto sched = reg.create_scheduler("greedy", no_params("[scheduler.params]"), host);
  pacer::StageTicket ticket{1, pacer::Stage::msm_g2, pacer::ResourceClass::membw, 1 << 20, 0};
  bool started = false;
  sched->admit(ticket, [&] { started = true; });
  CHECK(started);  // synchronously, before admit returns
  CHECK(sched->checkpoint(ticket, [] { FAIL("greedy never pauses, so it never resumes"); }));
  sched->finished(ticket, pacer::StageStats{});
}

TEST_CASE("plugins: an object keeps its library loaded after the registry is gone", "[plugins]") {
  auto host = quiet_host();
  std::shared_ptr<pacer::Allocator> alloc;
  {
    pacer::PluginRegistry reg({kRealPlugins});
    alloc = reg.create_allocator("plain", no_params("[allocator.params]"), host);
  }
  // The registry (and its handles) died; the object's deleter still holds the library, so its
  // vtable and code are still mapped.
  const auto block = alloc->allocate(4096, {});
  alloc->deallocate(block);
  CHECK(alloc->stats().allocations == 1);
  alloc.reset();
}

TEST_CASE("plugins: broken libraries are refused with the reason, the rest still load", "[plugins]") {
  pacer::PluginRegistry reg({kTestPlugins});
  reg.load_all();

  const auto* wrong_abi = candidate(reg, "libpacer_test_wrong_abi.so");
  REQUIRE(wrong_abi != nullptr);
  CHECK_FALSE(wrong_abi->loaded);
  CHECK(wrong_abi->abi == 999);
  CHECK_THAT(wrong_abi->refusal,
             Equals("C++ plugin ABI 0x000003e7 but this host speaks " + hex_abi(pacer::kCxxPluginAbi) +
                    ": rebuild the plugin against this Pacer"));

  const auto* unknown_kind = candidate(reg, "libpacer_test_unknown_kind.so");
  REQUIRE(unknown_kind != nullptr);
  CHECK_FALSE(unknown_kind->loaded);
  CHECK_THAT(unknown_kind->refusal, Contains("unknown plugin kind 7"));

  const auto* not_plugin = candidate(reg, "libpacer_test_not_a_plugin.so");
  REQUIRE(not_plugin != nullptr);
  CHECK_FALSE(not_plugin->loaded);
  CHECK_THAT(not_plugin->refusal, Contains("not a Pacer plugin"));

  const auto* unresolved = candidate(reg, "libpacer_test_unresolved_symbol.so");
  REQUIRE(unresolved != nullptr);
  CHECK_FALSE(unresolved->loaded);
  CHECK_THAT(unresolved->refusal, Contains("cannot load"));
  CHECK_THAT(unresolved->refusal, Contains("pacer_test_symbol_that_does_not_exist"));

  const auto* throws = candidate(reg, "libpacer_test_throws.so");
  REQUIRE(throws != nullptr);
  CHECK(throws->loaded);  // loading is fine; it is its factory that fails

  // The name of a library of another ABI is not trusted (its PluginInfo layout may differ), so
  // asking for it by name points at the refusals instead.
  auto host = quiet_host();
  CHECK_THROWS_AS(reg.create_allocator("wrong_abi", no_params("[allocator.params]"), host), pacer::InputError);
  CHECK_THROWS_WITH(reg.create_allocator("wrong_abi", no_params("[allocator.params]"), host),
                    Contains("no allocator plugin named 'wrong_abi'") && Contains("refused, see `pacer plugins`"));
  // A refused library whose name is known: asking for it says why it was refused.
  CHECK_THROWS_WITH(reg.create_allocator("unknown_kind", no_params("[allocator.params]"), host),
                    Equals("allocator plugin 'unknown_kind' was refused: " + unknown_kind->file.string() +
                           ": unknown plugin kind 7 (this host knows backend, allocator, scheduler)"));
}

TEST_CASE("plugins: a throwing factory is reported with plugin, file and message", "[plugins]") {
  pacer::PluginRegistry reg({kTestPlugins});
  auto host = quiet_host();
  const std::string file = (kTestPlugins / "libpacer_test_throws.so").string();
  CHECK_THROWS_AS(reg.create_scheduler("throws", no_params("[scheduler.params]"), host), pacer::FailedError);
  CHECK_THROWS_WITH(reg.create_scheduler("throws", no_params("[scheduler.params]"), host),
                    Equals("scheduler plugin 'throws' (" + file + ") failed to start: no device found"));
  // An InputError from the factory (bad params) stays an InputError: exit 2, the user can fix it.
  const std::string input_file = (kTestPlugins / "libpacer_test_throws_input.so").string();
  CHECK_THROWS_AS(reg.create_scheduler("throws_input", no_params("[scheduler.params]"), host), pacer::InputError);
  CHECK_THROWS_WITH(reg.create_scheduler("throws_input", no_params("[scheduler.params]"), host),
                    Equals("scheduler plugin 'throws_input' (" + input_file +
                           ") failed to start: [scheduler.params] budget must be positive, got -1"));
}

TEST_CASE("plugins: an unknown name lists what is available and where it looked", "[plugins]") {
  pacer::PluginRegistry reg({kRealPlugins, "/nonexistent/pacer-plugins"});
  auto host = quiet_host();
  CHECK_THROWS_AS(reg.create_scheduler("greedyy", no_params("[scheduler.params]"), host), pacer::InputError);
  try {
    reg.create_scheduler("greedyy", no_params("[scheduler.params]"), host);
  } catch (const pacer::InputError& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Contains("no scheduler plugin named 'greedyy' (available: "));
    CHECK_THAT(msg, Contains("greedy"));
    CHECK_THAT(msg, Contains("; searched: " + kRealPlugins.string() + ", /nonexistent/pacer-plugins)"));
  }
  pacer::PluginRegistry empty({"/nonexistent/pacer-plugins"});
  CHECK_THROWS_WITH(empty.create_backend("cdua", no_params("[backend.params]"), host),
                    Equals("no backend plugin named 'cdua' (available: none; searched: /nonexistent/pacer-plugins)"));
}

TEST_CASE("plugins: the first plugin of a name wins, a later one is refused naming both files", "[plugins]") {
  pacer::PluginRegistry reg({kRealPlugins, kTestPlugins});
  reg.load_all();
  const auto* real = candidate(reg, "libpacer_allocator_plain.so");
  const auto* dup = candidate(reg, "libpacer_test_duplicate_plain.so");
  REQUIRE(real != nullptr);
  REQUIRE(dup != nullptr);
  CHECK(real->loaded);
  CHECK_FALSE(dup->loaded);
  CHECK_THAT(dup->refusal, Equals("duplicate allocator plugin 'plain': " + real->file.string() +
                                  " was found first and is used"));
  // The same folder twice (or through another spelling) is not a duplicate.
  pacer::PluginRegistry twice({kRealPlugins, kRealPlugins / "." , kRealPlugins / ".." / "pacer"});
  CHECK(twice.search_path().size() == 1);
  for (const auto& c : twice.candidates()) CHECK(c.refusal.find("duplicate") == std::string::npos);
}

TEST_CASE("plugins: a library another user could replace or add to its folder is refused unread, naming the path",
          "[plugins]") {
  test_files::TempDir tmp;
  const fs::path dir = tmp.path / "plugins", lib = dir / "libpacer_allocator_plain.so";
  fs::create_directories(dir);
  fs::copy_file(kRealPlugins / "libpacer_allocator_plain.so", lib);
  using P = fs::perms;
  const auto refusal = [&](const fs::path& search) {
    pacer::PluginRegistry reg({search});
    reg.load_all();
    const auto* c = candidate(reg, lib.filename().string());
    REQUIRE(c != nullptr);
    return c->loaded ? std::string("loaded") : c->refusal;
  };
  fs::permissions(dir, P::owner_all | P::group_read | P::group_exec | P::others_read | P::others_exec);
  fs::permissions(lib, P::owner_read | P::owner_write | P::group_read | P::others_read);
  CHECK(refusal(dir) == "loaded");

  fs::permissions(lib, P::others_write, fs::perm_options::add);
  CHECK_THAT(refusal(dir), Contains(lib.string() + " is writable by every user"));
  fs::permissions(lib, P::others_write, fs::perm_options::remove);

  // Another user's file (only root can give one away: checked where the tests run as root).
  if (::geteuid() == 0) {
    REQUIRE(::chown(lib.c_str(), 65534, uid_t(-1)) == 0);
    CHECK_THAT(refusal(dir), Contains(lib.string() + " belongs to user 65534"));
    REQUIRE(::chown(lib.c_str(), 0, uid_t(-1)) == 0);
  }

  // The folder: the sticky bit does not help, since an added library may be found first.
  fs::permissions(dir, P::others_write | P::sticky_bit, fs::perm_options::add);
  CHECK_THAT(refusal(dir), Contains(dir.string() + " is writable by every user"));
  fs::permissions(dir, P::others_write | P::sticky_bit, fs::perm_options::remove);

  // Reached through a link from an open folder: the folder scanned counts too.
  const fs::path open = tmp.path / "open";
  fs::create_directories(open);
  fs::create_symlink(lib, open / lib.filename());
  fs::permissions(open, P::others_write, fs::perm_options::add);
  CHECK_THAT(refusal(open), Contains(open.string() + " is writable by every user"));

  // An ancestor every user may rename entries of (no sticky bit); with the sticky bit it is fine.
  const fs::path outer = tmp.path / "outer", inner = outer / "plugins";
  fs::create_directories(inner);
  fs::copy_file(lib, inner / lib.filename());
  fs::permissions(inner / lib.filename(), P::owner_read | P::owner_write | P::group_read | P::others_read);
  fs::permissions(outer, P::others_write, fs::perm_options::add);
  {
    pacer::PluginRegistry reg({inner});
    reg.load_all();
    REQUIRE(reg.candidates().size() == 1);
    CHECK_THAT(reg.candidates()[0].refusal, Contains(outer.string() + " is writable by every user without the sticky bit"));
  }
  fs::permissions(outer, P::sticky_bit, fs::perm_options::add);
  {
    pacer::PluginRegistry reg({inner});
    reg.load_all();
    REQUIRE(reg.candidates().size() == 1);
    CHECK(reg.candidates()[0].loaded);
  }
}

TEST_CASE("plugins: search path is config dirs, then PACER_PLUGIN_PATH, then install and executable dirs",
          "[plugins]") {
  pacer::Config cfg;
  cfg.host.plugin_dirs = {"/cfg/a", "/cfg/b"};
  const char* old = getenv("PACER_PLUGIN_PATH");
  const std::string saved = old ? old : "";
  setenv("PACER_PLUGIN_PATH", "/env/x::/env/y", 1);
  const auto path = pacer::PluginRegistry::search_path_for(cfg);
  if (old) setenv("PACER_PLUGIN_PATH", saved.c_str(), 1); else unsetenv("PACER_PLUGIN_PATH");

  REQUIRE(path.size() >= 5);
  CHECK(path[0] == "/cfg/a");
  CHECK(path[1] == "/cfg/b");
  CHECK(path[2] == "/env/x");
  CHECK(path[3] == "/env/y");
  // The test binary lives in <build>/bin, so <exe>/../lib/pacer is the build's plugin folder.
  bool has_build_dir = false;
  for (const auto& p : path) has_build_dir |= fs::weakly_canonical(p) == fs::weakly_canonical(kRealPlugins);
  CHECK(has_build_dir);
}
