#pragma once
// JSON documents that come from outside (verification keys, proofs, public signals, traces),
// parsed within bounds: nlohmann's parser has none, so a 20 MB file of nested brackets once took
// 770 MB and a megabyte-long number came back whole inside its error message.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pacer {

struct JsonLimits {
  size_t max_depth = 16;             // arrays and objects nested in each other
  size_t max_values = size_t(1) << 22;  // every value, container and key counted
};

// The parsed document, or InputError "<name>: not <kind> (<what>)" / "<name>: ... nested more than
// N deep" / "... more than N values", one line of at most ~200 bytes whatever the input held.
nlohmann::json parse_json_input(std::string_view text, const std::string& name, const JsonLimits& limits = {},
                                std::string_view kind = "JSON");

}  // namespace pacer
