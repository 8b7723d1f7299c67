#include "pacer/formats/json_input.hpp"

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "pacer/printable.hpp"

namespace pacer {

namespace {

// Thrown from the parser's callback to stop it at once (returning false would only drop the value
// and parse on).
struct TooLarge {
  std::string what;
};

}  // namespace

nlohmann::json parse_json_input(std::string_view text, const std::string& name, const JsonLimits& limits,
                                std::string_view kind) {
  using json = nlohmann::json;
  size_t values = 0;
  const json::parser_callback_t bound = [&](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        static_cast<size_t>(depth) >= limits.max_depth)
      throw TooLarge{fmt::format("arrays and objects nested more than {} deep", limits.max_depth)};
    if ((event == json::parse_event_t::value || event == json::parse_event_t::key) && ++values > limits.max_values)
      throw TooLarge{fmt::format("more than {} values", limits.max_values)};
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), bound);
  } catch (const TooLarge& e) {
    throw InputError(fmt::format("{}: {}, more than such a document has", name, e.what));
  } catch (const json::exception& e) {
    // Its message quotes the token it stopped at, which can be any length: cut it.
    throw InputError(fmt::format("{}: not {} ({})", name, kind, printable(e.what(), 160)));
  }
}

}  // namespace pacer
