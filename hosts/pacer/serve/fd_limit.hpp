#pragma once
// Descriptors for connections: every open connection holds one, and a daemon that runs out of
// them cannot accept (or open anything else). At start the soft limit is raised to the hard one,
// and the connections allowed are capped below what the limit leaves once the daemon's own files
// are open, so that connections alone never exhaust it.
#include <cstddef>
#include <cstdint>

namespace pacer::host::serve {

struct ConnectionBudget {
  uint64_t soft_before = 0;  // RLIMIT_NOFILE's soft limit at start
  uint64_t soft = 0;         // after raising it (to the hard limit, within what the kernel allows)
  uint64_t hard = 0;
  size_t open_now = 0;       // descriptors open when it was measured
  size_t connections = 0;    // connections allowed: max_connections, or fewer as the limit says
};

// Descriptors kept free beyond those open at start: a /proc read for /v1/status, the port file,
// a plugin's or the allocator's own files.
inline constexpr size_t kReservedDescriptors = 32;

// Raises the soft limit and works out the connections allowed. Throws InputError when the limit
// leaves no room for a single connection.
ConnectionBudget plan_connections(size_t max_connections);

}  // namespace pacer::host::serve
