// The WebAssembly binary format, as far as a circom generator's imports and exports need it:
// the module header, the section framing, and the type, import and export sections.
#include "wasm_module.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "pacer/witness/input_json.hpp"

namespace pacer::witness {

namespace {

// Byte-exact WebAssembly value types.
constexpr uint8_t kI32 = 0x7F;

struct FuncType {
  std::vector<uint8_t> params, results;
};

// The imports glue.c defines: "runtime" functions, (i32) -> () or () -> ().
const std::map<std::string, FuncType, std::less<>>& known_imports() {
  static const std::map<std::string, FuncType, std::less<>> imports = {
      {"exceptionHandler", {{kI32}, {}}},
      {"printErrorMessage", {{}, {}}},
      {"writeBufferMessage", {{}, {}}},
      {"showSharedRWMemory", {{}, {}}},
  };
  return imports;
}

// The exports glue.c calls.
constexpr std::array kRequiredExports = {"getVersion",      "getFieldNumLen32",    "getRawPrime",
                                         "readSharedRWMemory", "writeSharedRWMemory", "init",
                                         "getInputSignalSize", "setInputSignal",    "getInputSize",
                                         "getWitnessSize",  "getWitness",          "getMessageChar"};

class Cursor {
 public:
  Cursor(std::string_view bytes, const std::string& path, std::string where)
      : bytes_(bytes), path_(path), where_(std::move(where)) {}

  [[noreturn]] void damaged(const std::string& what) const {
    throw InputError(fmt::format("{}: not a valid WebAssembly file ({} at byte {} of {}); is it truncated or damaged? "
                                 "Compile the circuit again with circom --wasm",
                                 path_, what, pos_, where_));
  }
  bool done() const { return pos_ == bytes_.size(); }
  size_t position() const { return pos_; }
  uint8_t byte() {
    if (pos_ >= bytes_.size()) damaged("unexpected end");
    return static_cast<uint8_t>(bytes_[pos_++]);
  }
  uint32_t u32() {  // unsigned LEB128, at most 5 bytes
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 35; shift += 7) {
      const uint8_t b = byte();
      value |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) {
        if (value > UINT32_MAX) damaged("a number too large");
        return static_cast<uint32_t>(value);
      }
    }
    damaged("a number of more than 5 bytes");
  }
  std::string_view take(size_t n) {
    if (n > bytes_.size() - pos_) damaged("unexpected end");
    const std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  std::string_view name() { return take(u32()); }
  void limits() {
    const uint8_t flags = byte();
    u32();
    if (flags & 1) u32();
  }

 private:
  std::string_view bytes_;
  const std::string& path_;
  std::string where_;
  size_t pos_ = 0;
};

[[noreturn]] void not_circom(const std::string& path, const std::string& why) {
  throw InputError(fmt::format("{}: not a circom 2 witness generator ({}); give the .wasm that circom --wasm writes "
                               "in <circuit>_js/",
                               path, why));
}

std::vector<FuncType> read_types(Cursor& in) {
  std::vector<FuncType> types(in.u32());
  for (auto& type : types) {
    if (in.byte() != 0x60) in.damaged("a type that is not a function type");
    for (auto* list : {&type.params, &type.results}) {
      list->resize(in.u32());
      for (auto& v : *list) v = in.byte();
    }
  }
  return types;
}

}  // namespace

CircomWasm check_circom_wasm(std::string_view bytes, const std::string& path) {
  if (bytes.size() < 8 || bytes.substr(0, 4) != std::string_view("\0asm", 4))
    throw InputError(fmt::format("{}: not a WebAssembly file (it does not start with \\0asm); give the .wasm that "
                                 "circom --wasm writes in <circuit>_js/",
                                 path));
  Cursor file(bytes, path, "the file");
  file.take(4);
  if (file.take(4) != std::string_view("\1\0\0\0", 4)) file.damaged("a WebAssembly version other than 1");

  std::vector<FuncType> types;
  std::set<std::string, std::less<>> exports, memories;
  while (!file.done()) {
    const uint8_t id = file.byte();
    const uint32_t size = file.u32();
    const size_t start = file.position();
    Cursor section(file.take(size), path, fmt::format("section {} at byte {}", id, start));
    if (id > 13) file.damaged(fmt::format("an unknown section id {}", id));
    if (id == 1) types = read_types(section);
    if (id == 2) {
      for (uint32_t n = section.u32(); n > 0; --n) {
        const std::string module(section.name()), field(section.name());
        const uint8_t kind = section.byte();
        const std::string what = fmt::format("import {}.{}", printable_name(module), printable_name(field));
        if (kind != 0) {
          if (kind == 2) not_circom(path, what + " is a memory; circom 2 generators define their own");
          not_circom(path, what + " is not a function");
        }
        const uint32_t type = section.u32();
        const auto known = known_imports().find(field);
        if (module != "runtime" || known == known_imports().end())
          not_circom(path, what + " is not one of circom's runtime functions");
        if (type >= types.size() || types[type].params != known->second.params ||
            types[type].results != known->second.results)
          not_circom(path, what + " has another type than circom gives it");
      }
    }
    if (id == 7) {
      for (uint32_t n = section.u32(); n > 0; --n) {
        const std::string name(section.name());
        const uint8_t kind = section.byte();
        section.u32();
        if (kind == 0) exports.insert(name);
        if (kind == 2) memories.insert(name);
      }
    }
    if ((id == 1 || id == 2 || id == 7) && !section.done()) section.damaged("bytes after the last entry");
  }
  for (const char* name : kRequiredExports)
    if (!exports.contains(std::string_view(name)))
      not_circom(path, fmt::format("no exported function {}", name));
  return {exports.contains(std::string_view("getSharedRWMemoryStart")) && memories.contains(std::string_view("memory"))};
}

}  // namespace pacer::witness
