#pragma once
// Text that came from outside (a config value, a request, a file) as it may appear in an error or
// a log line: bytes outside printable ASCII written as \xNN (so no line break splits a one-line
// error and no escape sequence reaches a terminal), and cut at max_bytes, "..." marking the cut.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace pacer {

std::string printable(std::string_view text, size_t max_bytes = 120);

// Bytes as lowercase hex, two digits each, in order (digests, MACs, random ids).
std::string hex_bytes(std::span<const std::byte> bytes);

}  // namespace pacer
