#include "pacer/printable.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace pacer {

std::string printable(std::string_view text, size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 3);
  for (const char ch : text.substr(0, max_bytes)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7F && c != '\\') out += ch;
    else out += fmt::format("\\x{:02x}", c);
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

std::string hex_bytes(std::span<const std::byte> bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * bytes.size(), '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto b = std::to_integer<unsigned>(bytes[i]);
    out[2 * i] = kHex[b >> 4];
    out[2 * i + 1] = kHex[b & 15];
  }
  return out;
}

}  // namespace pacer
