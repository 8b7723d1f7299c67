#pragma once
// Private helpers shared by params.cpp and config.cpp: how a TOML value is named in an error.
#include <string>

#include <toml.hpp>

namespace pacer::detail {

// "integer", "string", "float", ... as a user would call the type of what they wrote.
std::string toml_type_name(toml::value_t type);

// "config.toml:12: " for a value parsed from a file; "" for one built in code (no location).
std::string toml_line_prefix(const toml::value& value);

}  // namespace pacer::detail
