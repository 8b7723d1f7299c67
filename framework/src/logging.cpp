#include "pacer/logging.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include "pacer/error.hpp"

namespace pacer {

const std::vector<std::string>& known_log_levels() {
  static const std::vector<std::string> levels{"trace", "debug", "info", "warn", "error", "off"};
  return levels;
}

spdlog::level::level_enum parse_log_level(std::string_view name) {
  // spdlog::level::from_str maps anything unknown to "off", which would silently hide all logs.
  static constexpr std::pair<std::string_view, spdlog::level::level_enum> table[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},   {"error", spdlog::level::err},   {"off", spdlog::level::off}};
  for (const auto& [n, level] : table)
    if (n == name) return level;
  throw InputError(fmt::format("unknown log level '{}' (use trace, debug, info, warn, error or off)", name));
}

std::shared_ptr<spdlog::logger> make_logger(std::string_view level) {
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("pacer", std::move(sink));
  logger->set_level(parse_log_level(level));
  logger->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  return logger;
}

}  // namespace pacer
