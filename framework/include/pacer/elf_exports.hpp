#pragma once
// Which symbols a shared library exports, read from its file without loading it: a library that
// is never dlopened runs no code (its constructors run at dlopen, before any check could refuse
// it). The plugin loader uses this to load only the libraries that carry Pacer's entry symbols.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pacer {

// Those of `wanted` that the library at `path` exports: defined symbols of its dynamic symbol
// table (.dynsym) with global or weak binding and default visibility. Every offset and size read
// from the file is checked against the file before it is used. InputError (one line naming the
// path) for a file that is not an ELF shared object of this machine, or whose tables do not fit.
std::vector<std::string> elf_exports_among(const std::string& path, const std::vector<std::string_view>& wanted);

// The bytes (at most max_bytes) that the exported data symbol `symbol` holds in the library's file:
// what its readers see once it is loaded, for constant data. None when the library does not export
// it, or its bytes are not in the file (zero-filled data). InputError as above, and for a symbol
// that lies outside its section.
std::optional<std::string> elf_exported_bytes(const std::string& path, std::string_view symbol, size_t max_bytes);

}  // namespace pacer
