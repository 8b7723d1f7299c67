#pragma once
// circom's .sym file (--sym): one line per signal, "label,wire,component,main.name[i]". A
// generator knows its inputs only by the hash of their names; the .sym file beside it gives the
// names back, for the message about missing inputs.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pacer::witness {

// The .sym file that circom wrote beside the generator: <stem>.sym in the .wasm's folder or the
// one above it (circom puts the .wasm in <circuit>_js/), or <circuit>.sym beside the C++ folder.
std::optional<std::filesystem::path> find_symbols(const std::filesystem::path& generator, bool cpp_folder);

// The distinct names of the main component's own signals ("a" for main.a and main.a[3]), in
// file order; signals of subcomponents are left out. Empty when the file cannot be read.
std::vector<std::string> main_signal_names(const std::filesystem::path& sym);

}  // namespace pacer::witness
