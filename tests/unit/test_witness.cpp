// Witness generators (docs/fullprove.md): input.json read by snarkjs's rules, and the shipped
// circuits' .wasm compiled to native code giving exactly the witnesses snarkjs wrote beside them,
// from many threads at once; foreign or damaged generators and unwritable caches are refused;
// a generator's access outside its memory is a trap of its call, and the host's own faults still
// end the process. The generator tests need wabt (wasm2c, wat2wasm) and a C compiler
// (scripts/install_deps.sh installs them).
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "pacer/error.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/witness/generator.hpp"
#include "pacer/witness/input_json.hpp"
#include "witness/native_library.hpp"

namespace fs = std::filesystem;
using pacer::InputError;
using namespace pacer::witness;

namespace {

const fs::path kCircuits = fs::path(PACER_SOURCE_DIR) / "examples" / "circuits";
// Shared by the tests of every run: each shipped generator compiles once per build folder.
const fs::path kCache = fs::path(PACER_BINARY_DIR) / "test-witness-cache";
const BigInt kBn254R("21888242871839275222246405745257275088548364400416034343698204186575808495617");

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    static std::atomic<int> counter{0};
    path = fs::temp_directory_path() / ("pacer-witness-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::vector<BigInt> values_of(const CircuitInputs& inputs, const std::string& name) {
  for (const auto& s : inputs.signals)
    if (s.name == name) return s.values;
  FAIL("no signal " << name);
  return {};
}

// A logger whose lines land in `out`.
std::shared_ptr<spdlog::logger> capturing_logger(std::ostringstream& out) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  return std::make_shared<spdlog::logger>("test", sink);
}

std::shared_ptr<Generator> open_shipped(const std::string& circuit, const std::string& curve,
                                        const fs::path& cache = kCache) {
  GeneratorOptions options;
  options.cache_dir = cache;
  options.log = spdlog::default_logger();
  return Generator::open({GeneratorKind::wasm, kCircuits / circuit / curve / "circuit.wasm"}, options);
}

CircuitInputs shipped_input(const std::string& circuit) {
  return read_input_json((kCircuits / circuit / "input.json").string());
}

void check_same_witness(const pacer::Witness& computed, const fs::path& wtns) {
  const pacer::Witness expected = pacer::read_wtns(wtns.string());
  REQUIRE(computed.curve == expected.curve);
  REQUIRE(computed.values.size() == expected.values.size());
  for (size_t i = 0; i < expected.values.size(); ++i) CHECK(computed.values[i] == expected.values[i]);
}

void write_bytes(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// A circom-shaped generator with one input, "mode", and two witness values: 1, then what
// getWitness(1) makes of the mode. 0: 7. 1: a load far beyond the memory (address 0xFFFFFFF0,
// static offset 0xFFFFFFF0). 2: a store just past the memory's end. 3: memory.grow by a page, then
// 42 stored there and read back. 4: an 8-byte load that starts 4 bytes before the end. 5:
// unreachable. 6: the highest address a load can form (0xFFFFFFFF + offset 0xFFFFFFFF, 8 bytes).
constexpr const char* kModesWat = R"((module
  (import "runtime" "exceptionHandler" (func (param i32)))
  (import "runtime" "printErrorMessage" (func))
  (import "runtime" "writeBufferMessage" (func))
  (import "runtime" "showSharedRWMemory" (func))
  (memory (export "memory") 1)
  ;; bytes 0-31: the shared read/write memory (8 words); 64: the mode
  (func (export "getVersion") (result i32) (i32.const 2))
  (func (export "getSharedRWMemoryStart") (result i32) (i32.const 0))
  (func (export "getFieldNumLen32") (result i32) (i32.const 8))
  (func (export "getInputSize") (result i32) (i32.const 1))
  (func (export "getWitnessSize") (result i32) (i32.const 2))
  (func (export "getMessageChar") (result i32) (i32.const 0))
  (func (export "init") (param i32) (i32.store (i32.const 64) (i32.const 0)))
  (func (export "readSharedRWMemory") (param i32) (result i32)
    (i32.load (i32.shl (local.get 0) (i32.const 2))))
  (func (export "writeSharedRWMemory") (param i32 i32)
    (i32.store (i32.shl (local.get 0) (i32.const 2)) (local.get 1)))
  (func $set_words (param i64 i64 i64 i64)
    (i64.store (i32.const 0) (local.get 0))
    (i64.store (i32.const 8) (local.get 1))
    (i64.store (i32.const 16) (local.get 2))
    (i64.store (i32.const 24) (local.get 3)))
  (func (export "getRawPrime") ;; bn128's r
    (call $set_words (i64.const 0x43e1f593f0000001) (i64.const 0x2833e84879b97091)
                     (i64.const 0xb85045b68181585d) (i64.const 0x30644e72e131a029)))
  (func (export "getInputSignalSize") (param i32 i32) (result i32) ;; "mode" hashes to 0x0d3deba2c41dadb2
    (if (result i32) (i32.and (i32.eq (local.get 0) (i32.const 0x0d3deba2))
                              (i32.eq (local.get 1) (i32.const 0xc41dadb2)))
      (then (i32.const 1)) (else (i32.const -1))))
  (func (export "setInputSignal") (param i32 i32 i32)
    (i32.store (i32.const 64) (i32.load (i32.const 0))))
  (func (export "getWitness") (param $i i32) (local $mode i32) (local $end i32) (local $value i64)
    (local.set $value (i64.const 1))
    (local.set $mode (i32.load (i32.const 64)))
    (local.set $end (i32.mul (memory.size) (i32.const 65536)))
    (if (local.get $i) (then
      (local.set $value (i64.const 7))
      (if (i32.eq (local.get $mode) (i32.const 1)) (then
        (local.set $value (i64.extend_i32_u (i32.load offset=0xFFFFFFF0 (i32.const 0xFFFFFFF0))))))
      (if (i32.eq (local.get $mode) (i32.const 2)) (then
        (i32.store (local.get $end) (i32.const 1))))
      (if (i32.eq (local.get $mode) (i32.const 3)) (then
        (drop (memory.grow (i32.const 1)))
        (i32.store offset=100 (local.get $end) (i32.const 42))
        (local.set $value (i64.extend_i32_u (i32.load offset=100 (local.get $end))))))
      (if (i32.eq (local.get $mode) (i32.const 4)) (then
        (local.set $value (i64.load (i32.sub (local.get $end) (i32.const 4))))))
      (if (i32.eq (local.get $mode) (i32.const 5)) (then unreachable))
      (if (i32.eq (local.get $mode) (i32.const 6)) (then
        (local.set $value (i64.load offset=0xFFFFFFFF (i32.const 0xFFFFFFFF)))))))
    (call $set_words (local.get $value) (i64.const 0) (i64.const 0) (i64.const 0))))
)";

// The generator above, compiled (cached in kCache: its .wasm is the same every time).
std::shared_ptr<Generator> open_modes_generator(const fs::path& dir) {
  write_bytes(dir / "modes.wat", kModesWat);
  const std::string command =
      "wat2wasm '" + (dir / "modes.wat").string() + "' -o '" + (dir / "circuit.wasm").string() + "'";
  REQUIRE(std::system(command.c_str()) == 0);
  GeneratorOptions options;
  options.cache_dir = kCache;
  options.log = spdlog::default_logger();
  return Generator::open({GeneratorKind::wasm, dir / "circuit.wasm"}, options);
}

CircuitInputs mode_input(int mode) {
  return parse_input_json("{\"mode\": " + std::to_string(mode) + "}", "mode.json");
}

constexpr const char* kOutOfBounds = "the generator trapped: out-of-bounds access to the generator's memory";

}  // namespace

TEST_CASE("input.json: values as snarkjs's BigInt() reads them, arrays flattened", "[witness]") {
  const auto inputs = parse_input_json(
      R"({"a": [[1, "2"], [3]], "hex": "0x1F", "oct": "0o17", "bin": "0b101", "neg": "-5", "plus": "+5",
          "blanks": " 7 ", "empty": "", "yes": true, "no": false, "float": 1e3, "negnum": -3})",
      "in.json");
  REQUIRE(inputs.signals.size() == 12);
  CHECK(inputs.signals[0].name == "a");  // the document's order
  CHECK(values_of(inputs, "a") == std::vector<BigInt>{1, 2, 3});
  CHECK(values_of(inputs, "hex") == std::vector<BigInt>{31});
  CHECK(values_of(inputs, "oct") == std::vector<BigInt>{15});
  CHECK(values_of(inputs, "bin") == std::vector<BigInt>{5});
  CHECK(values_of(inputs, "neg") == std::vector<BigInt>{-5});
  CHECK(values_of(inputs, "plus") == std::vector<BigInt>{5});
  CHECK(values_of(inputs, "blanks") == std::vector<BigInt>{7});
  CHECK(values_of(inputs, "empty") == std::vector<BigInt>{0});
  CHECK(values_of(inputs, "yes") == std::vector<BigInt>{1});
  CHECK(values_of(inputs, "no") == std::vector<BigInt>{0});
  CHECK(values_of(inputs, "float") == std::vector<BigInt>{1000});
  CHECK(values_of(inputs, "negnum") == std::vector<BigInt>{-3});
}

TEST_CASE("input.json: a JSON number goes through a double, and the lost digits are reported", "[witness]") {
  std::vector<std::string> warnings;
  const auto inputs = parse_input_json(R"({"x": 12345678901234567890, "y": 9007199254740993})", "in.json",
                                       [&](const std::string& w) { warnings.push_back(w); });
  CHECK(values_of(inputs, "x") == std::vector<BigInt>{BigInt("12345678901234567168")});
  CHECK(values_of(inputs, "y") == std::vector<BigInt>{BigInt("9007199254740992")});
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find("signal 'x'") != std::string::npos);
  CHECK(warnings[0].find("string") != std::string::npos);
}

TEST_CASE("input.json: what is not a number is refused naming the file and the signal", "[witness]") {
  const auto refused = [](const std::string& text, const std::string& fragment) {
    CHECK_THROWS_AS(parse_input_json(text, "in.json"), InputError);
    CHECK_THROWS_WITH(parse_input_json(text, "in.json"),
                      Catch::Contains("in.json") && Catch::Contains(fragment) && !Catch::Contains("\n"));
  };
  refused(R"({"a": "12abc"})", "signal 'a'");
  refused(R"({"a": "1.5"})", "not a number");
  refused(R"({"a": "-0x5"})", "not a number");
  refused(R"({"a": "0x"})", "not a number");
  refused(R"({"a": 1.5})", "not an integer");
  refused(R"({"a": null})", "null");
  refused(R"({"a": [1, {"b": 2}]})", "value 1 is an object");
  refused(R"({"a": )", "not valid JSON");
  refused(R"([1, 2])", "not a JSON object");
  refused(std::string(100, '[') + std::string(100, ']'), "nested deeper");
  refused(R"({"a\u0001b": "x"})", "signal 'a\\x01b'");  // echoed escaped
  refused("{\"a\": \"" + std::string(kInputNumberMaxChars + 1, '1') + "\"}", "characters");
}

TEST_CASE("input values reduce mod p as snarkjs does, or are refused with strict inputs", "[witness]") {
  pacer::Fr256 out{};
  REQUIRE(reduce_to_field(BigInt(-1), kBn254R, false, out));
  CHECK(out == pacer::Fr256{0x43e1f593f0000000ull, 0x2833e84879b97091ull, 0xb85045b68181585dull, 0x30644e72e131a029ull});
  REQUIRE(reduce_to_field(kBn254R * 2 + 3, kBn254R, false, out));
  CHECK(out == pacer::Fr256{3, 0, 0, 0});
  CHECK_FALSE(reduce_to_field(BigInt(-1), kBn254R, true, out));
  CHECK_FALSE(reduce_to_field(kBn254R, kBn254R, true, out));
  CHECK(reduce_to_field(kBn254R - 1, kBn254R, true, out));
}

TEST_CASE("signal names hash as circom's generators hash them (64-bit FNV-1a)", "[witness]") {
  CHECK(signal_hash("") == 0xcbf29ce484222325ull);
  CHECK(signal_hash("a") == 0xaf63dc4c8601ec8cull);
  CHECK(printable_name("ok[1]") == "ok[1]");
  CHECK(printable_name("a\nb") == "a\\x0ab");
  CHECK(printable_name(std::string(200, 'x')).size() == 83);
}

TEST_CASE("a shipped .wasm compiled to native code gives the witness snarkjs wrote, on both curves", "[witness]") {
  for (const auto& [circuit, curve] : std::vector<std::pair<std::string, std::string>>{
           {"mul3", "bn128"}, {"mul3", "bls12381"}, {"chain", "bls12381"}, {"nopub", "bn128"}}) {
    INFO(circuit << " " << curve);
    const auto generator = open_shipped(circuit, curve);
    CHECK(generator->curve() == (curve == "bn128" ? pacer::CurveId::bn254 : pacer::CurveId::bls12_381));
    check_same_witness(generator->compute(shipped_input(circuit), nullptr), kCircuits / circuit / curve / "witness.wtns");
  }
}

TEST_CASE("concurrent witnesses of two circuits in one process are each right", "[witness]") {
  const auto mul3 = open_shipped("mul3", "bn128");
  const auto chain = open_shipped("chain", "bls12381");
  const auto mul3_in = shipped_input("mul3"), chain_in = shipped_input("chain");
  const pacer::Witness mul3_expected = pacer::read_wtns((kCircuits / "mul3/bn128/witness.wtns").string());
  const pacer::Witness chain_expected = pacer::read_wtns((kCircuits / "chain/bls12381/witness.wtns").string());
  std::atomic<int> wrong{0}, done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        const bool use_mul3 = (t + i) % 2 == 0;
        const pacer::Witness w = (use_mul3 ? mul3 : chain)->compute(use_mul3 ? mul3_in : chain_in, nullptr);
        const pacer::Witness& expected = use_mul3 ? mul3_expected : chain_expected;
        if (!std::equal(w.values.begin(), w.values.end(), expected.values.begin(), expected.values.end())) ++wrong;
        ++done;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(done == 200);
  CHECK(wrong == 0);
}

TEST_CASE("inputs that do not fit the circuit are refused naming the input and the signal", "[witness]") {
  const auto generator = open_shipped("mul3", "bn128");
  const auto refused = [&](const std::string& text, const std::string& fragment, bool strict = false) {
    const CircuitInputs inputs = parse_input_json(text, "in.json");
    CHECK_THROWS_AS(generator->compute(inputs, nullptr, {strict}), InputError);
    CHECK_THROWS_WITH(generator->compute(inputs, nullptr, {strict}),
                      Catch::Contains("in.json") && Catch::Contains(fragment) && !Catch::Contains("\n"));
  };
  refused(R"({"a": 3, "b": 11, "c": 5, "zz": 1})", "'zz' is not an input signal");
  refused(R"({"a": 3, "b": [11, 12], "c": 5})", "signal 'b' takes 1 value, not 2");
  // circuit.sym lies beside the shipped .wasm: the missing inputs are named.
  refused(R"({"a": 3})", "2 of the circuit's 3 input values are missing: c, b");  // wire order
  refused(R"({"a": -3, "b": 11, "c": 5})", "outside [0, p)", true);
  // Not strict: -3 is p - 3, as in snarkjs, and the next witness is right again.
  CHECK_NOTHROW(generator->compute(parse_input_json(R"({"a": -3, "b": 11, "c": 5})", "in.json"), nullptr));
  check_same_witness(generator->compute(shipped_input("mul3"), nullptr), kCircuits / "mul3/bn128/witness.wtns");
}

TEST_CASE("generators that are damaged or foreign are refused before anything compiles", "[witness]") {
  ScratchDir dir;
  GeneratorOptions options;
  options.cache_dir = dir.path / "cache";
  const auto refused = [&](const std::string& bytes, const std::string& fragment) {
    const fs::path wasm = dir.path / "circuit.wasm";
    write_bytes(wasm, bytes);
    CHECK_THROWS_AS(Generator::open({GeneratorKind::wasm, wasm}, options), InputError);
    CHECK_THROWS_WITH(Generator::open({GeneratorKind::wasm, wasm}, options),
                      Catch::Contains(wasm.string()) && Catch::Contains(fragment) && !Catch::Contains("\n"));
  };
  std::ifstream shipped(kCircuits / "mul3/bn128/circuit.wasm", std::ios::binary);
  const std::string real((std::istreambuf_iterator<char>(shipped)), std::istreambuf_iterator<char>());
  refused(real.substr(0, real.size() / 2), "truncated or damaged");
  refused("not wasm at all", "not a WebAssembly file");
  refused(std::string("\0asm\1\0\0\0", 8), "not a circom 2 witness generator (no exported function getVersion)");
  CHECK_FALSE(fs::exists(options.cache_dir / "generators"));
  CHECK_THROWS_WITH(Generator::open({GeneratorKind::circom_cpp, dir.path}, options),
                    Catch::Contains("not circom's C++ generator"));
}

TEST_CASE("an unwritable cache dir is an error naming the dir and how to choose another", "[witness]") {
  ScratchDir dir;
  write_bytes(dir.path / "a-file", "x");
  GeneratorOptions options;
  options.cache_dir = dir.path / "a-file" / "cache";  // under a file: refused even for root
  options.cache_dir_hint = "--cache-dir DIR";
  const GeneratorSource source{GeneratorKind::wasm, kCircuits / "mul3/bn128/circuit.wasm"};
  CHECK_THROWS_AS(Generator::open(source, options), InputError);
  CHECK_THROWS_WITH(Generator::open(source, options),
                    Catch::Contains(options.cache_dir.string()) && Catch::Contains("--cache-dir DIR"));
}

TEST_CASE("two threads that need the same new generator compile it once", "[witness]") {
  ScratchDir dir;
  std::ostringstream log_text;
  GeneratorOptions options;
  options.cache_dir = dir.path / "cache";
  options.log = capturing_logger(log_text);
  const GeneratorSource source{GeneratorKind::wasm, kCircuits / "nopub/bn128/circuit.wasm"};
  std::vector<std::shared_ptr<Generator>> opened(2);
  std::thread a([&] { opened[0] = Generator::open(source, options); });
  std::thread b([&] { opened[1] = Generator::open(source, options); });
  a.join();
  b.join();
  options.log->flush();
  const std::string text = log_text.str();
  size_t compiles = 0;
  for (size_t at = 0; (at = text.find("to native code (first use", at)) != std::string::npos; ++at) ++compiles;
  CHECK(compiles == 1);
  REQUIRE(opened[0]);
  REQUIRE(opened[1]);
  CHECK(opened[0]->library() == opened[1]->library());
  // Only the finished entry is left: no folder of a build, beside the lock file.
  size_t folders = 0;
  for (const auto& item : fs::recursive_directory_iterator(options.cache_dir / "generators"))
    if (item.is_directory()) ++folders;
  CHECK(folders == 2);  // <source key>/<toolchain key>
}

TEST_CASE("a generator's access outside its memory is a trap of its call, and the thread goes on", "[witness]") {
  ScratchDir dir;
  const auto generator = open_modes_generator(dir.path);
  const auto second_value = [&](int mode) {
    const pacer::Witness witness = generator->compute(mode_input(mode), nullptr);
    REQUIRE(witness.values.size() == 2);
    return witness.values[1];
  };
  CHECK(second_value(0) == pacer::Fr256{7, 0, 0, 0});
  for (const int mode : {1, 2, 4, 6}) {
    INFO("mode " << mode);
    // Twice on this thread: a SIGSEGV left blocked by the first trap would end the process at the second.
    for (int round = 0; round < 2; ++round)
      CHECK_THROWS_WITH(generator->compute(mode_input(mode), nullptr),
                        Catch::Contains("mode.json") && Catch::Contains(kOutOfBounds));
    CHECK(second_value(0) == pacer::Fr256{7, 0, 0, 0});  // a fresh instance
  }
  CHECK_THROWS_WITH(generator->compute(mode_input(5), nullptr), Catch::Contains("unreachable code executed"));
  // memory.grow makes the next page usable, on an instance that grew before as on a fresh one.
  for (int round = 0; round < 3; ++round) CHECK(second_value(3) == pacer::Fr256{42, 0, 0, 0});

  // The same instance after a trap (Generator::compute discards one that failed; the library keeps it).
  const auto library = NativeLibrary::load(generator->library());
  Instance instance = library->acquire();
  const pacer_wg_api& api = instance.api();
  std::vector<uint32_t> words(2 * PACER_WG_MAX_WORDS);
  const auto run = [&](uint32_t mode) {
    const uint32_t value[PACER_WG_MAX_WORDS] = {mode};
    REQUIRE(api.begin(instance.get()) == PACER_WG_OK);
    REQUIRE(api.set_input(instance.get(), signal_hash("mode"), 0, value) == PACER_WG_OK);
    return api.witness(instance.get(), words.data());
  };
  sigset_t mask_before, mask_after;
  REQUIRE(::pthread_sigmask(SIG_BLOCK, nullptr, &mask_before) == 0);
  for (int round = 0; round < 2; ++round) {
    CHECK(run(1) == PACER_WG_GENERATOR_ERROR);
    CHECK_THAT(std::string(api.last_error(instance.get())), Catch::Contains(kOutOfBounds));
    // The trap left the handler by a jump: the thread's signal mask is still what it was.
    REQUIRE(::pthread_sigmask(SIG_BLOCK, nullptr, &mask_after) == 0);
    for (int signal = 1; signal < 32; ++signal)
      CHECK(sigismember(&mask_after, signal) == sigismember(&mask_before, signal));
    CHECK(run(0) == PACER_WG_OK);
    CHECK(words[PACER_WG_MAX_WORDS] == 7);
  }
}

TEST_CASE("a segfault of the host outside a generator's call still ends the process", "[witness]") {
  ScratchDir dir;
  const auto generator = open_modes_generator(dir.path);  // the handler is in place
  CHECK_THROWS_WITH(generator->compute(mode_input(1), nullptr), Catch::Contains(kOutOfBounds));
  void* const no_access = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(no_access != MAP_FAILED);
  for (void* const target : {static_cast<void*>(nullptr), no_access}) {
    INFO("write to " << target);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      const struct rlimit no_core = {0, 0};
      ::setrlimit(RLIMIT_CORE, &no_core);
      volatile int* volatile pointer = static_cast<int*>(target);  // volatile: the compiler knows nothing of it
      *pointer = 1;
      ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
#if defined(__SANITIZE_ADDRESS__)
    // The handler before ours is the sanitizer's: it reports the fault and ends the process with its
    // own exit status (UBSan stops the null store before it faults, the same way).
    CHECK((WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)));
#else
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGSEGV);
#endif
  }
  ::munmap(no_access, 4096);
}
