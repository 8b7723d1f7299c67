#pragma once
// How a generator becomes a library in the cache: one recipe per kind of generator. A recipe
// reads and checks its source up front (so that a damaged generator is refused before any
// compiler runs), knows the source key of the cache entry, finds its compilers (the toolchain
// key), and builds the library into a cache folder.
#include <filesystem>
#include <memory>
#include <string>

namespace spdlog { class logger; }

namespace pacer::witness {

inline constexpr const char* kGeneratorLibrary = "generator.so";
// What the C++ generator reads at run time, copied beside its library.
inline constexpr const char* kCircuitData = "circuit.dat";

class Recipe {
 public:
  virtual ~Recipe() = default;
  // SHA-256 of the generator's content, Pacer's glue and Pacer's version.
  virtual const std::string& source_key() const = 0;
  // Finds the compilers (InputError naming what is missing) and hashes what they say they are
  // (remembered in memo_dir: toolchain.hpp).
  virtual std::string toolchain_key(const std::filesystem::path& memo_dir) = 0;
  // Writes kGeneratorLibrary (and what it needs beside it) into `dir`. InputError when the
  // generator does not translate or compile, naming the first error.
  virtual void build(const std::filesystem::path& dir, spdlog::logger& log) = 0;
};

// Reads and checks the .wasm (wasm_module.hpp).
std::unique_ptr<Recipe> wasm_recipe(const std::filesystem::path& wasm);
// Reads the folder of circom --c: its .cpp/.hpp/.asm sources and the one .dat.
std::unique_ptr<Recipe> circom_cpp_recipe(const std::filesystem::path& folder);

// Shared by the recipes.
namespace recipe_detail {
// Writes Pacer's glue files (witness_native_sources.hpp) into `dir`.
void write_glue(const std::filesystem::path& dir);
// Hashes every glue file into a hasher's parts (through `add`).
std::string glue_and_version();
// Writes `bytes` to dir/name; FailedError naming the file when the disk refuses.
void write_file(const std::filesystem::path& file, std::string_view bytes);
// One line from a compiler's output for an error message: the first line that says "error",
// else the last line, escaped and cut to 300 characters.
std::string first_error(const std::string& output);
}  // namespace recipe_detail

}  // namespace pacer::witness
