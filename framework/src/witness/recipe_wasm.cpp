// A circom .wasm to a library: wasm2c translates it to C, the system C compiler compiles the
// translation together with wasm_glue.c (which includes it) into generator.so.
#include <chrono>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "build_cache.hpp"
#include "pacer/error.hpp"
#include "pacer/files.hpp"
#include "recipes.hpp"
#include "toolchain.hpp"
#include "wasm_module.hpp"

namespace pacer::witness {

namespace fs = std::filesystem;
using namespace recipe_detail;

namespace {

constexpr uint64_t kWasmMaxBytes = uint64_t(1) << 30;

// No bounds check on loads and stores (MEMCHECK_SIGNAL_HANDLER=1): linear memory lies in an 8 GiB
// reservation whose pages past its size fault, and the host's SIGSEGV handler (fault_guard.cpp)
// makes such a fault a trap of the call (wasm_glue.c). memory.fill/copy/init keep their checks.
// wasm2c's depth counter is still on, turned into a native stack check by wasm_prelude.h. -O3: 7%
// faster witnesses than -O2 on a 141k-constraint circuit, for about the same compile time.
const std::vector<std::string> kFlags = {
    "-O3", "-fPIC", "-shared", "-fvisibility=hidden", "-pthread", "-w", "-DNDEBUG", "-D_GNU_SOURCE",
    "-DWASM_RT_MEMCHECK_SIGNAL_HANDLER=1", "-DWASM_RT_USE_STACK_DEPTH_COUNT=1",
    "-DWASM_RT_MAX_CALL_STACK_DEPTH=0x7fffffff", "-DPACER_WASM2C_SOURCE=\"circuit.c\"", "-include", "wasm_prelude.h",
    "-Wl,-z,defs"};

// What use_native_field() below changes in wasm2c's output: part of the cache key, so that a
// library built with other edits is not taken for this one.
constexpr std::string_view kTranslationEdits =
    "translation edits 1: Fr_F1m_mul and Fr_F1m_mReduct native (wasm_field.h)";

// Where the translation defines circom's Fr_F1m_mul or Fr_F1m_mReduct with the signature the glue
// expects, the definition is renamed pacer_module_<name> and the glue's native version (wasm_field.h)
// takes the module's calls, checking its first results against the renamed one. Text of wasm2c's
// output, matched whole: any other form leaves the translation as it is.
constexpr std::string_view kInstanceParam = "Z_circuit_instance_t* instance";

bool rename_definition(std::string& translation, std::string_view function, size_t u32_params) {
  // The definition names its parameters; the forward declaration before it does not.
  const std::string head = fmt::format("\nstatic void w2c_{}({}", function, kInstanceParam);
  const size_t at = translation.find(head);
  if (at == std::string::npos || translation.find(head, at + 1) != std::string::npos) return false;
  const size_t open = at + head.size() - kInstanceParam.size(), close = translation.find(") {\n", open);
  if (close == std::string::npos) return false;
  const std::string_view params(translation.data() + open, close - open);
  if (params.find('\n') != std::string_view::npos) return false;
  size_t count = 0;  // ", u32 <name>" after the instance, nothing else
  for (size_t pos = kInstanceParam.size(); pos < params.size(); ++count) {
    if (params.substr(pos, 6) != ", u32 ") return false;
    pos = params.find(',', pos + 6);
    if (pos == std::string_view::npos) pos = params.size();
  }
  if (count != u32_params) return false;
  translation.replace(at + 1 + std::string_view("static void ").size(), 4 + function.size(),
                      fmt::format("pacer_module_{}", function));
  return true;
}

// The -D flags for wasm_glue.c of the native functions put in (none where the translation does not
// export its memory as "memory", which the glue reads the operands from).
std::vector<std::string> use_native_field(const fs::path& translation_file) {
  std::string translation = RegularFile(translation_file.string()).read_all(uint64_t(1) << 36, "wasm2c's translation");
  if (translation.find("\nwasm_rt_memory_t* Z_circuitZ_memory(Z_circuit_instance_t* instance) {\n") == std::string::npos)
    return {};
  std::vector<std::string> flags;
  if (rename_definition(translation, "Fr_F1m_mul", 3)) flags.push_back("-DPACER_NATIVE_F1M_MUL=1");
  if (rename_definition(translation, "Fr_F1m_mReduct", 2)) flags.push_back("-DPACER_NATIVE_F1M_MREDUCT=1");
  if (!flags.empty()) write_file(translation_file, translation);
  return flags;
}

class WasmRecipe final : public Recipe {
 public:
  explicit WasmRecipe(const fs::path& wasm) : path_(wasm) {
    bytes_ = RegularFile(wasm.string()).read_all(kWasmMaxBytes, "witness generator (.wasm)");
    const CircomWasm wasm_info = check_circom_wasm(bytes_, wasm.string());
    if (wasm_info.shared_rw_start) module_flags_.push_back("-DPACER_WASM_SHARED_RW_START=1");
    KeyHasher hasher;
    hasher.add("pacer witness generator: wasm");
    hasher.add(glue_and_version());
    hasher.add(kTranslationEdits);
    hasher.add(bytes_);  // (module_flags_ follow from these bytes)
    source_key_ = hasher.hex();
  }

  const std::string& source_key() const override { return source_key_; }

  std::string toolchain_key(const fs::path& memo_dir) override {
    toolchain_ = find_wasm_toolchain(memo_dir);
    KeyHasher hasher;
    hasher.add(toolchain_.identity);
    for (const auto& flag : kFlags) hasher.add(flag);
    return hasher.hex();
  }

  void build(const fs::path& dir, spdlog::logger& log) override {
    // The bytes that were checked and hashed, not the file again: it may have changed since.
    write_file(dir / "circuit.wasm", bytes_);
    const auto t0 = std::chrono::steady_clock::now();
    const CommandResult translated =
        run_command({toolchain_.wasm2c.string(), "circuit.wasm", "-n", "circuit", "-o", "circuit.c"}, dir);
    if (translated.exit_code != 0)
      throw InputError(fmt::format("{}: wasm2c cannot translate it ({}); is it damaged? Compile the circuit again with "
                                   "circom --wasm",
                                   path_.string(), first_error(translated.output)));
    write_glue(dir);
    const std::vector<std::string> native_flags = use_native_field(dir / "circuit.c");
    std::vector<std::string> command = toolchain_.cc;
    command.insert(command.end(), kFlags.begin(), kFlags.end());
    command.insert(command.end(), module_flags_.begin(), module_flags_.end());
    command.insert(command.end(), native_flags.begin(), native_flags.end());
    command.insert(command.end(), {"-I.", "-I" + toolchain_.wasm_rt_include.string(), "wasm_glue.c", "-o",
                                   kGeneratorLibrary, "-lm"});
    const auto t1 = std::chrono::steady_clock::now();
    const CommandResult compiled = run_command(command, dir);
    if (compiled.exit_code != 0) {
      log.debug("C compiler output for {}:\n{}", path_.string(), compiled.output);
      throw FailedError(fmt::format("{}: the C compiler ({}) failed on wasm2c's translation: {}", path_.string(),
                                    toolchain_.cc.front(), first_error(compiled.output)));
    }
    log.debug("{}: wasm2c {:.1f} s, C compiler {:.1f} s, native field functions: {}", path_.string(),
              std::chrono::duration<double>(t1 - t0).count(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count(),
              native_flags.empty() ? "none" : fmt::format("{}", fmt::join(native_flags, " ")));
    // Only the library stays: the translation of a large circuit is hundreds of megabytes.
    std::error_code ec;
    for (const auto& item : fs::directory_iterator(dir))
      if (item.path().filename() != kGeneratorLibrary) fs::remove(item.path(), ec);
    write_file(dir / "source.txt", fmt::format("built from {} (wasm, {} bytes)\n{}", fs::absolute(path_).string(),
                                               bytes_.size(), toolchain_.identity));
  }

 private:
  fs::path path_;
  std::string bytes_;
  std::vector<std::string> module_flags_;  // what this module exports beyond the required
  std::string source_key_;
  WasmToolchain toolchain_;
};

}  // namespace

std::unique_ptr<Recipe> wasm_recipe(const fs::path& wasm) { return std::make_unique<WasmRecipe>(wasm); }

}  // namespace pacer::witness
