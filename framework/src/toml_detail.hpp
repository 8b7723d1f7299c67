#pragma once
// Private helpers shared by params.cpp and config.cpp: how a TOML value is named in an error,
// and the limits a config's text is held to before it is parsed.
#include <cstddef>
#include <string>
#include <string_view>

#include <toml.hpp>

namespace pacer::detail {

// "integer", "string", "float", ... as a user would call the type of what they wrote.
std::string toml_type_name(toml::value_t type);

// "config.toml:12: " for a value parsed from a file; "" for one built in code (no location).
std::string toml_line_prefix(const toml::value& value);

// Where a value starts in its file, in bytes; 0 for one built in code. Cheap, unlike
// value.location(), which counts the lines from the start of the file on every call.
size_t toml_offset(const toml::value& value);

// The limits of docs/config.md ("Limits"): they bound toml11's stack depth and parsing time.
inline constexpr size_t kConfigMaxBytes = size_t(64) << 10;
inline constexpr size_t kConfigMaxLineBytes = 4096;
inline constexpr size_t kConfigMaxDepth = 32;      // arrays and tables, [table] headers included
inline constexpr size_t kConfigMaxKeyParts = 32;   // a.b.c has 3

// Throws InputError "<file>:<line>: <what>; see the limits in docs/config.md" for text that is not
// UTF-8 or for the first limit it exceeds (all but the file size, which the reader checks first).
void check_config_limits(std::string_view text, const std::string& file);

// Throws InputError "<file>:<line>: the integer <literal> does not fit in 64 bits ..." for the first
// integer of a parsed config whose text is beyond int64 (toml11 would have clamped it).
void check_config_integers(const toml::value& root);

}  // namespace pacer::detail
