// Hostile input for the command line's remaining gaps: libraries on the plugin path that are not
// loaded unless they carry Pacer's entry symbols, JSON documents without bounds, config text that
// reaches error messages, integers beyond 64 bits, outputs that cannot be written or are left
// half-placed, and exceptions at thread boundaries.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hostile_helpers.hpp"
#include "pacer/config.hpp"
#include "pacer/dev/synthetic.hpp"
#include "pacer/elf_exports.hpp"
#include "pacer/files.hpp"
#include "pacer/formats/json_input.hpp"
#include "pacer/formats/writers.hpp"
#include "pacer/logging.hpp"
#include "pacer/plugin_loader.hpp"
#include "pacer/printable.hpp"
#include "pacer/runtime.hpp"
#include "pacer/thread_guard.hpp"
#include "pacer/thread_pool.hpp"
#include "pacer/verify.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using namespace hostile;

namespace {

const fs::path kPlugins = PACER_PLUGIN_BUILD_DIR;
const fs::path kTestPlugins = PACER_TEST_PLUGIN_DIR;
const fs::path kHostilePlugins = fs::path(PACER_BINARY_DIR) / "lib" / "pacer-hostile-plugins";

std::string text_of(const fs::path& p) {
  const Bytes b = read_bytes(p);
  return std::string(b.begin(), b.end());
}

const pacer::PluginCandidate* candidate(const pacer::PluginRegistry& reg, const std::string& file_name) {
  for (const auto& c : reg.candidates())
    if (c.file.filename() == file_name) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("hostile: the ELF reader finds exported symbols without loading, and refuses damaged files", "[hostile]") {
  const std::vector<std::string_view> entry{"pacer_plugin_info", "pacer_plugin_create", "pacer_plugin_kind_allocator",
                                            "pacer_plugin_kind_backend"};
  auto plain = pacer::elf_exports_among((kPlugins / "libpacer_allocator_plain.so").string(), entry);
  std::sort(plain.begin(), plain.end());
  CHECK(plain == std::vector<std::string>{"pacer_plugin_create", "pacer_plugin_info", "pacer_plugin_kind_allocator"});
  CHECK(pacer::elf_exports_among((kTestPlugins / "libpacer_test_not_a_plugin.so").string(), entry).empty());

  Scratch tmp;
  const Bytes good = read_bytes(kPlugins / "libpacer_allocator_plain.so");
  CHECK_REFUSED(pacer::elf_exports_among(tmp.write("text.so", std::string("not an ELF file at all")), entry),
                "text.so", "not an ELF file");
  CHECK_REFUSED(pacer::elf_exports_among(tmp.write("short.so", Bytes(good.begin(), good.begin() + 40)), entry),
                "short.so", "lies outside the file");
  // Truncated after the header: the section headers (at the end of the file) are gone.
  CHECK_REFUSED(pacer::elf_exports_among(tmp.write("cut.so", Bytes(good.begin(), good.begin() + 4096)), entry),
                "cut.so", "section headers");
  // Every byte after the ELF header flipped, one file each for a sample of offsets: refused or
  // read, never a crash or a read outside the file (the sanitizer job would say).
  for (size_t at = 64; at < good.size(); at += good.size() / 97 + 1) {
    Bytes bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0xff);
    try {
      pacer::elf_exports_among(tmp.write("flipped.so", bad), entry);
    } catch (const pacer::InputError&) {
    }
  }
  const std::string fifo = tmp.fifo("fifo.so");
  CHECK_REFUSED(pacer::elf_exports_among(fifo, entry), "is a FIFO");
}

TEST_CASE("hostile: a library without Pacer's entry symbols is never loaded, so its constructor never runs",
          "[hostile][plugins]") {
  Scratch tmp;
  const std::string marker = tmp.path("constructor-ran");
  ::setenv("PACER_TEST_CONSTRUCTOR_MARKER", marker.c_str(), 1);
  fs::create_directories(tmp.dir / "plain");
  fs::copy_file(kHostilePlugins / "libpacer_hostile_constructor_plain.so", tmp.dir / "plain" / "libhostile.so");
  {
    const pacer::PluginRegistry reg({tmp.dir / "plain"});
    const auto* c = candidate(reg, "libhostile.so");
    REQUIRE(c != nullptr);
    CHECK_FALSE(c->loaded);
    CHECK_THAT(c->refusal, Contains("not a Pacer plugin, not loaded"));
    CHECK_FALSE(fs::exists(marker));
  }
  // With the entry symbols it is a candidate: loaded where the command makes plugins (its
  // constructor runs, and the library is then refused for what it says), never where it makes none.
  fs::create_directories(tmp.dir / "entry");
  fs::copy_file(kHostilePlugins / "libpacer_hostile_constructor_entry.so", tmp.dir / "entry" / "libhostile.so");
  {
    const pacer::PluginRegistry none({tmp.dir / "entry"}, {});
    CHECK_FALSE(candidate(none, "libhostile.so")->loaded);
    CHECK_FALSE(fs::exists(marker));
  }
  {
    const pacer::PluginRegistry all({tmp.dir / "entry"});
    CHECK(fs::exists(marker));
  }
  ::unsetenv("PACER_TEST_CONSTRUCTOR_MARKER");
}

TEST_CASE("hostile: plugins of a kind a command does not make are listed but not loaded", "[hostile][plugins]") {
  const pacer::PluginRegistry reg({kPlugins}, {pacer::PluginKind::allocator});
  const auto* greedy = candidate(reg, "libpacer_scheduler_greedy.so");
  REQUIRE(greedy != nullptr);
  CHECK_FALSE(greedy->loaded);
  CHECK(greedy->kind == pacer::PluginKind::scheduler);
  CHECK_THAT(greedy->refusal, Contains("a scheduler plugin, and this command uses none"));
  const auto* plain = candidate(reg, "libpacer_allocator_plain.so");
  REQUIRE(plain != nullptr);
  CHECK(plain->pending);  // of a kind the command makes: loaded once asked for by name
}

TEST_CASE("hostile: text from outside is printable ASCII in messages, and cut", "[hostile]") {
  CHECK(pacer::printable("ok: a-Z 0_9") == "ok: a-Z 0_9");
  CHECK(pacer::printable("\x1b[31mred\n\r\\") == "\\x1b[31mred\\x0a\\x0d\\x5c");
  CHECK(pacer::printable("\xc3\xa9t\xc3\xa9") == "\\xc3\\xa9t\\xc3\\xa9");
  CHECK(pacer::printable(std::string(1000, '7'), 10) == "7777777777...");
}

TEST_CASE("hostile: JSON documents are parsed within bounds of depth, values and message length", "[hostile]") {
  // 20 MB of nesting once took 770 MB: now refused at depth 17, at once.
  const std::string nested(20'000'000, '[');
  CHECK(refusal_seconds([&] { pacer::parse_json_input(nested, "deep.json"); }) < kQuickSeconds);
  CHECK_REFUSED(pacer::parse_json_input(nested, "deep.json"), "deep.json", "nested more than 16 deep");
  // A megabyte-long number: the parser quotes it in its error; the message stays short.
  const std::string huge = "[" + std::string(1'000'000, '9') + "]";
  try {
    pacer::parse_json_input(huge, "huge.json");
    FAIL("a number of a million digits was accepted");
  } catch (const pacer::InputError& e) {
    CHECK(std::string(e.what()).size() < 300);
    CHECK_THAT(e.what(), Contains("huge.json: not JSON"));
  }
  std::string many = "[0";
  for (int i = 0; i < 2000; ++i) many += ",0";
  many += "]";
  CHECK_REFUSED(pacer::parse_json_input(many, "many.json", {.max_depth = 4, .max_values = 1000}), "more than 1000 values");
  CHECK(pacer::parse_json_input("{\"a\": [[1, 2], {\"b\": null}]}", "fine.json").at("a").size() == 2);
}

TEST_CASE("hostile: verify does the cheap checks before any key point", "[hostile][verify]") {
  // A verification key of the other curve, with many IC points: refused from its curve field at
  // once (every IC point's subgroup check first took 9 s).
  auto vk = nlohmann::json::parse(text_of(kMul3Bls / "verification_key.json"));
  const auto ic0 = vk["IC"][0];
  for (int i = 0; i < 5000; ++i) vk["IC"].push_back(ic0);
  vk["nPublic"] = vk["IC"].size() - 1;
  const std::string vkey = vk.dump(), proof = text_of(kMul3Bn / "snarkjs_proof.json"), publics = text_of(kMul3Bn / "public.json");
  const auto verify = [&] {
    return pacer::verify_groth16({vkey, "vk.json"}, {proof, "proof.json"}, {publics, "public.json"});
  };
  CHECK(refusal_seconds(verify) < 1.0);
  CHECK_REFUSED(verify(), "proof.json", "curve", "bls12381");
  // Its own curve's proof: the count of public signals is refused before the points are read.
  const std::string bls_proof = text_of(kMul3Bls / "snarkjs_proof.json"), bls_public = text_of(kMul3Bls / "public.json");
  const auto t0 = std::chrono::steady_clock::now();
  const pacer::Verdict v = pacer::verify_groth16({vkey, "vk.json"}, {bls_proof, "p"}, {bls_public, "public.json"});
  CHECK_FALSE(v.valid);
  CHECK_THAT(v.reason, Contains("public.json has 2 public signals but the key has 5002"));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1));
  // A megabyte-long number in the proof: bad input (exit 2), and not echoed.
  std::string long_proof = proof;
  long_proof.insert(long_proof.find('[') + 1, std::string(1'000'000, '1') + ",");
  try {
    pacer::verify_groth16({text_of(kMul3Bn / "verification_key.json"), "vk"}, {long_proof, "proof.json"},
                          {publics, "public.json"});
    FAIL("a proof holding a number of a million digits was taken");
  } catch (const pacer::InputError& e) {
    CHECK(std::string(e.what()).size() < 300);
  }
}

TEST_CASE("hostile: config text in errors is printable, and integers beyond 64 bits are refused", "[hostile][config]") {
  Scratch tmp;
  // TOML's \u escapes put the control bytes into the key and the value.
  CHECK_REFUSED(pacer::load_config(tmp.write("esc.toml", std::string("[host]\n\"\\u001b[2J\" = 1\n"))),
                "esc.toml:2:", "unknown key '\\x1b[2J'");
  CHECK_REFUSED(pacer::load_config(tmp.write("level.toml", std::string("[host]\nlog_level = \"\\u001b]0;x\\u0007\"\n"))),
                "got \"\\x1b]0;x\\x07\"");
  CHECK_REFUSED(pacer::load_config(tmp.write("big.toml", std::string("[host]\nthreads = 99999999999999999999\n"))),
                "big.toml:2:", "the integer 99999999999999999999 does not fit in 64 bits");
  // Inside a plugin's params, where no range check would have caught the clamped value.
  CHECK_REFUSED(pacer::load_config(tmp.write("param.toml",
                                             std::string("[allocator]\nplugin = \"pooled\"\nparams = { max_cached_mb "
                                                         "= 0x1_0000_0000_0000_0000 }\n"))),
                "param.toml:3:", "0x1_0000_0000_0000_0000 does not fit in 64 bits");
  CHECK_REFUSED(pacer::load_config(tmp.write("bin.toml", "[x]\na = 0b1" + std::string(70, '0') + "\n")),
                "does not fit in 64 bits");
  CHECK(pacer::load_config(tmp.write("max.toml", std::string("[host]\nthreads = 0\n[pipeline]\njobs_in_flight = "
                                                             "+1\n"))).pipeline.jobs_in_flight == 1);
  CHECK_REFUSED(pacer::load_config(tmp.write("min.toml", std::string("[pipeline]\njobs_in_flight = "
                                                                     "-9223372036854775808\n"))),
                "jobs_in_flight must be between 1 and 256, got -9223372036854775808");
}

TEST_CASE("hostile: burst_mb without membw_mb_per_s says what it goes with", "[hostile][schedulers]") {
  Scratch tmp;
  const pacer::Config config = pacer::load_config(tmp.write(
      "burst.toml", std::string("[scheduler]\nplugin = \"throttled\"\nparams = { membw_tokens = 2, burst_mb = 64 }\n")));
  CHECK_REFUSED(pacer::Runtime(config, pacer::make_logger("off")), "burst_mb goes with membw_mb_per_s");
}

TEST_CASE("hostile: outputs that cannot be written are refused before any work", "[hostile]") {
  Scratch tmp;
  const std::vector<pacer::NamedFile> none;
  CHECK_REFUSED(pacer::check_outputs(none, {{"--proof", ""}}), "--proof: an empty path");
  CHECK_REFUSED(pacer::check_outputs(none, {{"--proof", tmp.path(std::string(256, 'n'))}}),
                "--proof: a file name of 256 bytes (at most 255)");
  CHECK_REFUSED(pacer::check_outputs(none, {{"--proof", tmp.path("sub/..")}}), "names a folder");
  // A folder nobody may create files in, root included.
  CHECK_REFUSED(pacer::check_outputs(none, {{"--public", "/proc/self/public.json"}}),
                "/proc/self/public.json: cannot write in folder /proc/self");
  pacer::check_outputs(none, {{"--proof", tmp.path(std::string(255, 'n'))}});  // the longest name is fine
  CHECK(fs::is_empty(tmp.dir));  // the check leaves nothing behind
}

TEST_CASE("hostile: temporary names fit NAME_MAX, and a signal's clean-up removes open temporary files",
          "[hostile]") {
  Scratch tmp;
  const std::string longest = tmp.path(std::string(255, 'x'));
  {
    pacer::FileWriter out(longest);
    CHECK(fs::path(out.temp_path()).filename().string().size() <= 255);
    out.write("data", 4);
    out.commit();
  }
  CHECK(fs::file_size(longest) == 4);
  pacer::FileWriter a(tmp.path("a.json")), b(tmp.path("b.json"));
  a.write("a", 1);
  CHECK(fs::exists(a.temp_path()));
  pacer::remove_temporary_files_now();  // what the SIGINT handler of `pacer` calls
  CHECK_FALSE(fs::exists(a.temp_path()));
  CHECK_FALSE(fs::exists(b.temp_path()));
}

TEST_CASE("hostile: outputs placed together are all placed or none, old ones put back", "[hostile]") {
  Scratch tmp;
  const std::string proof = tmp.write("proof.json", std::string("old proof")), publics = tmp.path("public.json");
  {
    pacer::FileWriter p(proof), q(publics);
    p.write("new proof", 9);
    q.write("new public", 10);
    p.close();
    q.close();
    fs::remove(q.temp_path());  // the second rename will fail
    CHECK_THROWS_AS(pacer::commit_together({&p, &q}), pacer::FailedError);
  }
  CHECK(text_of(proof) == "old proof");  // put back
  CHECK_FALSE(fs::exists(publics));
  for (const auto& entry : fs::directory_iterator(tmp.dir))  // no temporary or kept file left
    CHECK(entry.path().filename().string().rfind(".", 0) != 0);
  {
    pacer::FileWriter p(proof), q(publics);
    p.write("new proof", 9);
    q.write("new public", 10);
    p.close();
    q.close();
    pacer::commit_together({&p, &q});
  }
  CHECK(text_of(proof) == "new proof");
  CHECK(text_of(publics) == "new public");
}

TEST_CASE("hostile: gen-circuit's size estimate is the size it writes", "[hostile]") {
  Scratch tmp;
  pacer::ThreadPool pool(2);
  const auto circuit = pacer::dev::gen_circuit(pacer::CurveId::bn254, 1000, 3, 2, 7, pool);
  pacer::dev::write_circuit_r1cs(tmp.path("c.r1cs"), circuit);
  pacer::dev::write_circuit_wtns(tmp.path("c.wtns"), circuit);
  const auto sizes = pacer::dev::synthetic_sizes(1000, 3, 2);
  CHECK(sizes.r1cs_bytes == fs::file_size(tmp.path("c.r1cs")));
  CHECK(sizes.wtns_bytes == fs::file_size(tmp.path("c.wtns")));
  CHECK(sizes.memory_bytes == circuit.wires.size() * 4 + (circuit.coeffs.size() + circuit.witness.size()) * 32);
  // 2^28 constraints: the size that once wrote 6 GB before failing for memory.
  CHECK(pacer::dev::synthetic_sizes(uint64_t(1) << 28, 3, 1).memory_bytes > (uint64_t(60) << 30));
}

TEST_CASE("hostile: an exception at a thread boundary is logged and the thread goes on", "[hostile][engine]") {
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  auto log = std::make_shared<spdlog::logger>("test", sink);

  pacer::ThreadPool pool(2);
  pool.set_log(log.get());
  std::atomic<int> ran{0};
  // A loop's exception reaches its caller; the workers that ran its other indices go on.
  CHECK_THROWS_WITH(pool.parallel_for(64, [](size_t i) { if (i == 5) throw std::runtime_error("a task that throws"); }),
                    "a task that throws");
  pool.parallel_for(8, [&](size_t) { ++ran; });
  CHECK(ran == 8);

  pacer::AsioTimekeeper time(log);
  std::atomic<bool> later{false};
  time.call_at(time.now(), [] { throw std::runtime_error("a timer that throws"); });
  time.call_at(time.now() + std::chrono::milliseconds(20), [&] { later = true; });
  for (int i = 0; i < 200 && !later; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(later);

  boost::asio::io_context io;
  int handled = 0;
  boost::asio::post(io, [] { throw std::logic_error("a handler that throws"); });
  boost::asio::post(io, [&] { ++handled; });
  pacer::run_io_until_stopped(io, log.get(), "a test thread");
  CHECK(handled == 1);

  log->flush();
  const std::string text = captured.str();
  CHECK_THAT(text, Contains("a scheduler's timer callback threw, and goes on: a timer that throws"));
  CHECK_THAT(text, Contains("a test thread threw, and goes on: a handler that throws"));
}
