#pragma once
// A circom witness generator run as native code (docs/fullprove.md): the circuit's .wasm
// (translated by wasm2c) or its `circom --c` C++ folder, compiled by the system's compilers into
// a shared library once, cached under the cache dir by content, and loaded RTLD_LOCAL. Several
// generators live in one process; compute() is thread-safe, each call on an instance (memory)
// of its own. The witness is what `snarkjs wtns calculate` computes, byte for byte.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "pacer/allocator.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/witness/input_json.hpp"

namespace spdlog { class logger; }

namespace pacer::witness {

enum class GeneratorKind : uint8_t { wasm, circom_cpp };

struct GeneratorSource {
  GeneratorKind kind = GeneratorKind::wasm;
  std::filesystem::path path;  // the .wasm file, or the <circuit>_cpp folder of circom --c
  // "circuit.wasm" / "C++ generator circuit_cpp/": how messages name it.
  std::string describe() const;
};

struct GeneratorOptions {
  std::filesystem::path cache_dir;  // empty: default_cache_dir() ($XDG_CACHE_HOME/pacer, ~/.cache/pacer)
  // How the user sets another cache dir, for the message when it is not writable.
  std::string cache_dir_hint = "--cache-dir DIR or [witness] cache_dir in the config";
  std::shared_ptr<spdlog::logger> log;  // progress of a build, and the circuit's log() lines
};

struct ComputeOptions {
  bool strict_inputs = false;  // refuse values outside [0, p) instead of reducing them mod p
};

class Generator {
 public:
  // Loads the generator's library from the cache, compiling it first when the cache has none
  // for this content (a progress line on the log; a minute for large circuits). Throws
  // InputError for a damaged or foreign generator, a C++ folder that does not compile, a missing
  // compiler, an unwritable cache dir.
  static std::shared_ptr<Generator> open(const GeneratorSource& source, const GeneratorOptions& options);
  ~Generator();
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  const GeneratorSource& source() const;
  const std::filesystem::path& library() const;  // the compiled library in the cache
  CurveId curve() const;
  uint32_t witness_size() const;  // wires, = the key's nVars
  uint32_t input_count() const;   // field elements the inputs take in all

  // The witness for `inputs` (values from `allocator`, Usage::witness). Throws InputError naming
  // the input's source: an unknown signal, a wrong number of values, missing signals (named when
  // circuit.sym lies beside the generator), a value outside [0, p) with strict_inputs, or a circuit
  // that refuses the input (its assert, with the template and line the generator reports).
  Witness compute(const CircuitInputs& inputs, Allocator* allocator, const ComputeOptions& options = {}) const;
  // compute()'s checks of the signals (names, counts, missing ones, strict values) without
  // running the circuit: what a daemon answers at once, before a proof is queued.
  void check_inputs(const CircuitInputs& inputs, const ComputeOptions& options = {}) const;

  struct Impl;

 private:
  explicit Generator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

std::filesystem::path default_cache_dir();

}  // namespace pacer::witness
