// Native witness generators (pacer/witness/generator.hpp): found in or built into the cache,
// loaded, and run on inputs bound to the circuit's field.
#include "pacer/witness/generator.hpp"

#include <bit>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <stop_token>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "../trusted_path.hpp"
#include "build_cache.hpp"
#include "circuit_symbols.hpp"
#include "native_library.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/zkey.hpp"
#include "recipes.hpp"

namespace pacer::witness {

namespace fs = std::filesystem;

std::string GeneratorSource::describe() const {
  if (kind == GeneratorKind::wasm) return path.string();
  return fmt::format("C++ generator {}", path.string());
}

struct Generator::Impl {
  GeneratorSource source;
  fs::path library_file;
  std::shared_ptr<NativeLibrary> library;
  std::shared_ptr<spdlog::logger> log;
  CurveId curve = CurveId::bn254;
  BigInt prime;
  uint32_t n32 = 0, witness_size = 0, input_count = 0;

  [[noreturn]] void refuse(const CircuitInputs& inputs, const std::string& why) const {
    throw InputError(fmt::format("{}: {}", inputs.source, why));
  }
  // Throws for a call that did not return PACER_WG_OK.
  void check(const Instance& instance, int status, const CircuitInputs& inputs) const {
    if (status == PACER_WG_OK) return;
    const std::string message = instance.api().last_error(instance.get());
    if (status == PACER_WG_CIRCUIT_ERROR)
      refuse(inputs, fmt::format("the circuit refused this input ({}): {}", source.describe(), message));
    throw InputError(fmt::format("{}: the witness generator failed on {}: {}", source.describe(), inputs.source, message));
  }
  std::string missing_inputs(const Instance& instance, const CircuitInputs& inputs, size_t given) const;
  // Checks every signal against the circuit, then reduces its values to the field: the signals'
  // hashes and values in order, ready to set. Throws InputError for the first problem.
  struct BoundInput {
    uint64_t hash;
    std::vector<Fr256> values;
  };
  std::vector<BoundInput> bind(const Instance& instance, const CircuitInputs& inputs, const ComputeOptions& options) const;
};

namespace {

// The circuit's log() lines, on the generator's logger.
void log_line(void* context, const char* line) {
  try {
    static_cast<spdlog::logger*>(context)->info("circuit log: {}", printable_name(line));
  } catch (...) {
    // A log line that cannot be written must not unwind through the generator's C frames.
  }
}

// Says every 15 s that a build goes on, so that the first use of a large circuit never looks hung.
class BuildTicker {
 public:
  BuildTicker(spdlog::logger& log, std::string what) : log_(log), what_(std::move(what)) {
    try {
      thread_ = std::jthread([this](std::stop_token stop) { tick_until(stop); });
    } catch (const std::system_error&) {
      // No thread to spare: the build runs without the reminders.
    }
  }
  ~BuildTicker() {
    if (thread_.joinable()) thread_.request_stop();  // wakes the wait; the jthread joins
  }
  BuildTicker(const BuildTicker&) = delete;
  BuildTicker& operator=(const BuildTicker&) = delete;

 private:
  void tick_until(std::stop_token stop) {
    try {
      std::unique_lock lock(mu_);
      for (int seconds = 15; !cv_.wait_for(lock, stop, std::chrono::seconds(15), [] { return false; }) &&
                             !stop.stop_requested();
           seconds += 15)
        log_.info("still compiling {}: {} s", what_, seconds);
    } catch (...) {
      // A reminder that cannot be written is not worth ending the process for.
    }
  }
  spdlog::logger& log_;
  std::string what_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::jthread thread_;  // last: started once the members it reads exist
};

std::unique_ptr<Recipe> make_recipe(const GeneratorSource& source) {
  if (source.kind == GeneratorKind::wasm) return wasm_recipe(source.path);
  return circom_cpp_recipe(source.path);
}

}  // namespace

std::string Generator::Impl::missing_inputs(const Instance& instance, const CircuitInputs& inputs, size_t given) const {
  std::string text = fmt::format("{} of the circuit's {} input values are missing", input_count - given, input_count);
  const auto sym = find_symbols(source.path, source.kind == GeneratorKind::circom_cpp);
  if (!sym) return text + " (put circom's .sym file beside the generator to have them named)";
  std::vector<std::string> missing;
  for (const std::string& name : main_signal_names(*sym)) {
    bool present = false;
    for (const auto& s : inputs.signals) present |= s.name == name;
    int64_t size = -1;
    if (!present && instance.api().input_size(instance.get(), signal_hash(name), &size) == PACER_WG_OK && size > 0)
      missing.push_back(printable_name(name));
  }
  if (missing.empty()) return text;
  return fmt::format("{}: {}", text, fmt::join(missing, ", "));
}

Generator::Generator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Generator::~Generator() = default;

std::shared_ptr<Generator> Generator::open(const GeneratorSource& source, const GeneratorOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->source = source;
  impl->log = options.log ? options.log : spdlog::default_logger();
  spdlog::logger& log = *impl->log;
  const std::unique_ptr<Recipe> recipe = make_recipe(source);  // reads and checks the generator
  BuildCache cache(options.cache_dir.empty() ? default_cache_dir() : options.cache_dir, options.cache_dir_hint);

  std::string toolchain_key;
  std::optional<fs::path> entry;
  try {
    toolchain_key = recipe->toolchain_key(cache.root() / "toolchains");
    entry = cache.find(recipe->source_key(), toolchain_key);
  } catch (const InputError& no_compiler) {
    // A machine without compilers may still hold a library built elsewhere (pacer witness --compile-only).
    entry = cache.find_any(recipe->source_key());
    if (!entry) throw;
    log.debug("{}; using the library compiled before: {}", no_compiler.what(), entry->string());
  }
  bool fresh = false;
  for (int attempt = 0;; ++attempt) {
    if (!entry) {
      // Only the process that compiles says so; one that waits for it says that instead.
      entry = cache.get_or_build(
          recipe->source_key(), toolchain_key,
          [&](const fs::path& dir) {
            log.info("compiling {} to native code (first use of this generator; a large circuit takes a minute)",
                     source.describe());
            const auto start = std::chrono::steady_clock::now();
            {
              const BuildTicker ticker(log, source.describe());
              recipe->build(dir, log);
            }
            log.info("compiled {} in {:.1f} s; cached in {}", source.describe(),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                     cache.root().string());
          },
          log);
      fresh = true;
    }
    impl->library_file = *entry / kGeneratorLibrary;
    // The cache is this user's (made 0700): a library there that another user could have put or
    // changed is never run; say so rather than build over it.
    if (auto why = replaceable_by_others(impl->library_file,
                                         {cache.root(), cache.root() / "generators", entry->parent_path(), *entry}))
      throw InputError(fmt::format("witness generator cache: {}; {} is not loaded (remove it, or give a private cache "
                                   "folder with {})",
                                   *why, impl->library_file.string(), options.cache_dir_hint));
    try {
      impl->library = NativeLibrary::load(impl->library_file);
      break;
    } catch (const Error& e) {
      // A cached library that does not load (damaged, or made for another system): build it again once.
      if (fresh || attempt > 0 || toolchain_key.empty()) throw;
      log.warn("{}; compiling it again", e.what());
      cache.discard(*entry);
      entry.reset();
    }
  }

  Instance instance = impl->library->acquire();
  const pacer_wg_api& api = instance.api();
  impl->n32 = api.field_words(instance.get());
  impl->witness_size = api.witness_size(instance.get());
  impl->input_count = api.input_count(instance.get());
  uint32_t prime_words[PACER_WG_MAX_WORDS] = {};
  api.prime(instance.get(), prime_words);
  std::array<std::byte, 32> prime_bytes{};
  std::memcpy(prime_bytes.data(), prime_words, std::min<size_t>(impl->n32 * 4u, prime_bytes.size()));
  const auto curve = impl->n32 == 8 ? curve_from_scalar_prime(prime_bytes) : std::nullopt;
  for (uint32_t j = impl->n32; j-- > 0;) impl->prime = (impl->prime << 32) | prime_words[j];
  if (!curve)
    throw InputError(fmt::format("{}: the circuit's prime is {}; Pacer proves on bn128 and bls12381 only (circom "
                                 "--prime bn128 or bls12381)",
                                 source.describe(), impl->prime.str()));
  impl->curve = *curve;
  instance.release();
  return std::shared_ptr<Generator>(new Generator(std::move(impl)));
}

const GeneratorSource& Generator::source() const { return impl_->source; }
const fs::path& Generator::library() const { return impl_->library_file; }
CurveId Generator::curve() const { return impl_->curve; }
uint32_t Generator::witness_size() const { return impl_->witness_size; }
uint32_t Generator::input_count() const { return impl_->input_count; }

std::vector<Generator::Impl::BoundInput> Generator::Impl::bind(const Instance& instance, const CircuitInputs& inputs,
                                                               const ComputeOptions& options) const {
  const pacer_wg_api& api = instance.api();
  std::vector<BoundInput> bound;
  size_t given = 0;
  for (const InputSignal& signal : inputs.signals) {
    const uint64_t hash = signal_hash(signal.name);
    int64_t size = -1;
    check(instance, api.input_size(instance.get(), hash, &size), inputs);
    // A name the circuit does not know has size 0 (or -1); snarkjs lets "x": [] pass for it.
    if (size <= 0 && !signal.values.empty())
      refuse(inputs, fmt::format("'{}' is not an input signal of the circuit ({})", printable_name(signal.name),
                                 source.describe()));
    if (static_cast<uint64_t>(std::max<int64_t>(size, 0)) != signal.values.size())
      refuse(inputs, fmt::format("signal '{}' takes {} value{}, not {}", printable_name(signal.name), size,
                                 size == 1 ? "" : "s", signal.values.size()));
    given += signal.values.size();
    bound.push_back({hash, {}});
  }
  if (given < input_count) refuse(inputs, missing_inputs(instance, inputs, given));
  for (size_t s = 0; s < inputs.signals.size(); ++s) {
    const InputSignal& signal = inputs.signals[s];
    bound[s].values.resize(signal.values.size());
    for (size_t i = 0; i < signal.values.size(); ++i)
      if (!reduce_to_field(signal.values[i], prime, options.strict_inputs, bound[s].values[i]))
        refuse(inputs, fmt::format("signal '{}': value {} ({}) is outside [0, p) of {} (--strict-inputs)",
                                   printable_name(signal.name), i, signal.values[i].str().substr(0, 100),
                                   curve_json_name(curve)));
  }
  return bound;
}

void Generator::check_inputs(const CircuitInputs& inputs, const ComputeOptions& options) const {
  Instance instance = impl_->library->acquire();
  impl_->bind(instance, inputs, options);
  instance.release();  // lookups only: the instance is as it was
}

Witness Generator::compute(const CircuitInputs& inputs, Allocator* allocator, const ComputeOptions& options) const {
  const Impl& g = *impl_;
  Instance instance = g.library->acquire();
  const pacer_wg_api& api = instance.api();
  api.set_log(instance.get(), log_line, g.log.get());
  g.check(instance, api.begin(instance.get()), inputs);
  // Every signal checked before any is set: the first problem is the one reported.
  const std::vector<Impl::BoundInput> bound = g.bind(instance, inputs, options);
  for (const auto& signal : bound)
    for (size_t i = 0; i < signal.values.size(); ++i) {
      uint32_t words[PACER_WG_MAX_WORDS];
      std::memcpy(words, signal.values[i].data(), sizeof words);
      g.check(instance, api.set_input(instance.get(), signal.hash, static_cast<uint32_t>(i), words), inputs);
    }

  Witness witness;
  witness.path = fmt::format("{} (computed by {})", inputs.source, g.source.describe());
  witness.curve = g.curve;
  witness.values = AllocatedArray<Fr256>(allocator, g.witness_size, Usage::witness);
  static_assert(sizeof(Fr256) == PACER_WG_MAX_WORDS * sizeof(uint32_t) && std::endian::native == std::endian::little,
                "a value's 8 little-endian words are its 4 little-endian limbs");
  g.check(instance, api.witness(instance.get(), reinterpret_cast<uint32_t*>(witness.values.data())), inputs);
  const Fr256& r = curve_scalar_prime(g.curve);
  for (size_t i = 0; i < witness.values.size(); ++i)
    if (!fr256_less_than(witness.values[i], r))
      throw FailedError(fmt::format("{}: witness value {} is not below the prime; the generator is broken",
                                    g.source.describe(), i));
  instance.release();
  return witness;
}

}  // namespace pacer::witness
