// Signal names from circom's .sym file (circuit_symbols.hpp).
#include "circuit_symbols.hpp"

#include <set>
#include <sstream>

#include "pacer/files.hpp"

namespace pacer::witness {

namespace fs = std::filesystem;

namespace {
constexpr uint64_t kSymMaxBytes = uint64_t(512) << 20;
}

std::optional<fs::path> find_symbols(const fs::path& generator, bool cpp_folder) {
  std::vector<fs::path> candidates;
  if (cpp_folder) {
    std::string name = generator.filename().string();
    if (name.empty()) name = generator.parent_path().filename().string();  // "dir/" names the folder
    const fs::path folder = generator.filename().empty() ? generator.parent_path() : generator;
    if (name.ends_with("_cpp")) name.resize(name.size() - 4);
    candidates = {folder.parent_path() / (name + ".sym"), folder / (name + ".sym")};
  } else {
    const std::string stem = generator.stem().string();
    candidates = {generator.parent_path() / (stem + ".sym"), generator.parent_path().parent_path() / (stem + ".sym")};
  }
  std::error_code ec;
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec)) return c;
  return std::nullopt;
}

std::vector<std::string> main_signal_names(const fs::path& sym) {
  std::string text;
  try {
    text = RegularFile(sym.string()).read_all(kSymMaxBytes, "circuit .sym file");
  } catch (const std::exception&) {
    return {};  // only ever used to improve a message
  }
  std::vector<std::string> names;
  std::set<std::string> seen;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t name_at = [&] {  // after the third comma
      size_t at = 0;
      for (int commas = 0; commas < 3; ++commas) {
        at = line.find(',', at);
        if (at == std::string::npos) return at;
        ++at;
      }
      return at;
    }();
    if (name_at == std::string::npos || line.compare(name_at, 5, "main.") != 0) continue;
    std::string name = line.substr(name_at + 5);
    if (name.find('.') != std::string::npos) continue;  // a subcomponent's signal (main.h[0].out)
    if (const size_t bracket = name.find('['); bracket != std::string::npos) name.resize(bracket);
    if (!name.empty() && name.back() == '\r') name.pop_back();
    if (name.empty()) continue;
    if (seen.insert(name).second) names.push_back(name);
  }
  return names;
}

}  // namespace pacer::witness
