// circom's --c folder to a library: its C++ sources (main.cpp with main renamed, for
// loadCircuit) and fr.asm, with Pacer's circom_glue.cpp, compiled by the system's C++ compiler
// and nasm into generator.so; the folder's .dat is copied beside it as circuit.dat.
#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "build_cache.hpp"
#include "pacer/error.hpp"
#include "pacer/files.hpp"
#include "recipes.hpp"
#include "toolchain.hpp"

namespace pacer::witness {

namespace fs = std::filesystem;
using namespace recipe_detail;

namespace {

constexpr size_t kMaxFiles = 256;
constexpr uint64_t kMaxFolderBytes = uint64_t(2) << 30;
const std::set<std::string> kRequired = {"calcwit.cpp", "calcwit.hpp", "circom.hpp", "fr.cpp",
                                         "fr.hpp",      "fr.asm",      "main.cpp"};

// Generated code is not ours to warn about (-w); glue/ comes first, for its assert.h.
const std::vector<std::string> kFlags = {"-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden", "-pthread", "-w",
                                         "-Iglue", "-Isrc", "-include", "circom_prelude.hpp"};
const std::vector<std::string> kLinkFlags = {"-shared", "-pthread", "-Wl,-z,defs", "-Wl,-z,noexecstack", "-lgmp"};

bool is_source(const std::string& name) {
  for (const char* ext : {".cpp", ".hpp", ".h", ".asm"})
    if (name.ends_with(ext)) return true;
  return false;
}

class CircomCppRecipe final : public Recipe {
 public:
  explicit CircomCppRecipe(const fs::path& folder) : folder_(folder) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
      throw InputError(fmt::format("{}: not a folder (--circuit-cpp takes the <circuit>_cpp folder circom --c writes)",
                                   folder.string()));
    uint64_t total = 0;
    for (const auto& item : fs::directory_iterator(folder, ec)) {
      const std::string name = item.path().filename().string();
      if (!item.is_regular_file(ec) || (!is_source(name) && !name.ends_with(".dat"))) continue;
      if (sources_.size() + dats_.size() >= kMaxFiles)
        throw InputError(fmt::format("{}: more than {} source files; is it circom's --c folder?", folder.string(),
                                     kMaxFiles));
      std::string bytes = RegularFile(item.path().string()).read_all(kMaxFolderBytes, "file of a C++ generator");
      total += bytes.size();
      if (total > kMaxFolderBytes)
        throw InputError(fmt::format("{}: more than {} bytes of sources", folder.string(), kMaxFolderBytes));
      (name.ends_with(".dat") ? dats_ : sources_)[name] = std::move(bytes);
    }
    if (ec) throw InputError(fmt::format("{}: cannot list the folder: {}", folder.string(), ec.message()));
    for (const auto& required : kRequired)
      if (!sources_.contains(required))
        throw InputError(fmt::format("{}: not circom's C++ generator (no {}); give the <circuit>_cpp folder that "
                                     "circom --c writes",
                                     folder.string(), required));
    if (dats_.size() != 1)
      throw InputError(fmt::format("{}: {} .dat files; circom --c writes one (<circuit>.dat)", folder.string(),
                                   dats_.size()));
    for (const auto& [name, bytes] : sources_)
      if (name.ends_with(".cpp") && !kRequired.contains(name)) circuit_sources_.push_back(name);
    if (circuit_sources_.empty())
      throw InputError(fmt::format("{}: no <circuit>.cpp beside calcwit.cpp; is the folder complete?", folder.string()));
    KeyHasher hasher;
    hasher.add("pacer witness generator: circom-cpp");
    hasher.add(glue_and_version());
    for (const auto* files : {&sources_, &dats_})
      for (const auto& [name, bytes] : *files) {
        hasher.add(name);
        hasher.add(bytes);
      }
    source_key_ = hasher.hex();
  }

  const std::string& source_key() const override { return source_key_; }

  std::string toolchain_key(const fs::path& memo_dir) override {
    toolchain_ = find_cpp_toolchain(memo_dir);
    KeyHasher hasher;
    hasher.add(toolchain_.identity);
    for (const auto* flags : {&kFlags, &kLinkFlags})
      for (const auto& flag : *flags) hasher.add(flag);
    return hasher.hex();
  }

  void build(const fs::path& dir, spdlog::logger& log) override {
    const auto start = std::chrono::steady_clock::now();
    for (const char* sub : {"src", "glue", "obj"}) fs::create_directory(dir / sub);
    // The bytes that were read and hashed, not the folder again: it may have changed since.
    for (const auto& [name, bytes] : sources_) write_file(dir / "src" / name, bytes);
    write_file(dir / kCircuitData, dats_.begin()->second);
    write_glue(dir / "glue");

    std::vector<std::pair<std::string, std::vector<std::string>>> steps;  // (what, command)
    steps.push_back({"fr.asm", {toolchain_.nasm.string(), "-felf64", "src/fr.asm", "-o", "obj/fr_asm.o"}});
    std::vector<std::string> objects = {"obj/fr_asm.o"};
    auto compile = [&](const std::string& file, const std::vector<std::string>& extra) {
      std::vector<std::string> command = toolchain_.cxx;
      command.insert(command.end(), kFlags.begin(), kFlags.end());
      command.insert(command.end(), extra.begin(), extra.end());
      const std::string object = "obj/" + fs::path(file).stem().string() + ".o";
      command.insert(command.end(), {"-c", file, "-o", object});
      steps.push_back({file, command});
      objects.push_back(object);
    };
    for (const char* file : {"src/fr.cpp", "src/calcwit.cpp"}) compile(file, {});
    for (const auto& name : circuit_sources_) compile("src/" + name, {});
    compile("src/main.cpp", {"-Dmain=pacer_circom_unused_main"});  // for its loadCircuit()
    compile("glue/circom_glue.cpp", {});

    // Every file at once: the circuit's own file is the long one, the others hide behind it.
    std::vector<std::future<CommandResult>> running;
    for (const auto& [what, command] : steps)
      running.push_back(std::async(std::launch::async, [&dir, command = command] { return run_command(command, dir); }));
    for (size_t i = 0; i < steps.size(); ++i) {
      const CommandResult result = running[i].get();
      if (result.exit_code != 0) {
        for (size_t j = i + 1; j < steps.size(); ++j) running[j].wait();
        log.debug("compiler output for {}:\n{}", steps[i].first, result.output);
        throw InputError(fmt::format("{}: the C++ generator does not compile ({} failed on {}): {}", folder_.string(),
                                     fs::path(steps[i].second.front()).filename().string(), steps[i].first,
                                     first_error(result.output)));
      }
    }
    std::vector<std::string> link = toolchain_.cxx;
    link.insert(link.end(), {"-o", kGeneratorLibrary});
    link.insert(link.end(), objects.begin(), objects.end());
    link.insert(link.end(), kLinkFlags.begin(), kLinkFlags.end());
    const CommandResult linked = run_command(link, dir);
    if (linked.exit_code != 0) {
      log.debug("linker output for {}:\n{}", folder_.string(), linked.output);
      throw InputError(fmt::format("{}: the C++ generator does not link: {}", folder_.string(),
                                   first_error(linked.output)));
    }
    for (const char* sub : {"src", "glue", "obj"}) fs::remove_all(dir / sub);
    log.debug("{}: compiled in {:.1f} s", folder_.string(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    write_file(dir / "source.txt", fmt::format("built from {} (circom C++ folder)\n{}", fs::absolute(folder_).string(),
                                               toolchain_.identity));
  }

 private:
  fs::path folder_;
  std::map<std::string, std::string> sources_, dats_;  // sorted by name: the key does not depend on listing order
  std::vector<std::string> circuit_sources_;
  std::string source_key_;
  CppToolchain toolchain_;
};

}  // namespace

std::unique_ptr<Recipe> circom_cpp_recipe(const fs::path& folder) { return std::make_unique<CircomCppRecipe>(folder); }

}  // namespace pacer::witness
