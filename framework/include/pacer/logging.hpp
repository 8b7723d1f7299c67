#pragma once
// The host's logger: one spdlog logger writing to stderr (stdout stays clean for data), shared
// with every plugin through HostServices.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

namespace pacer {

// trace, debug, info, warn, error, off: the names [host] log_level accepts.
const std::vector<std::string>& known_log_levels();

// Throws InputError "unknown log level 'x' (use trace, debug, info, warn, error or off)".
spdlog::level::level_enum parse_log_level(std::string_view name);

// A stderr logger named "pacer" at `level` (colour only on a terminal). Not registered in
// spdlog's global registry, so several hosts/tests in one process do not collide.
std::shared_ptr<spdlog::logger> make_logger(std::string_view level = "info");

}  // namespace pacer
