#include "fd_limit.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "pacer/error.hpp"

namespace pacer::host::serve {

namespace {

size_t open_descriptors() {
  std::error_code ec;
  size_t n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;  // counts the iterator's own descriptor too: a reserve of one
}

}  // namespace

ConnectionBudget plan_connections(size_t max_connections) {
  ConnectionBudget budget;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    budget.soft_before = limit.rlim_cur;
    if (limit.rlim_cur < limit.rlim_max) {
      rlimit raised = limit;
      raised.rlim_cur = limit.rlim_max;
      // Linux caps RLIMIT_NOFILE at fs.nr_open even when the hard limit is "unlimited": try that.
      if (::setrlimit(RLIMIT_NOFILE, &raised) != 0 && limit.rlim_max == RLIM_INFINITY) {
        raised.rlim_cur = 1u << 20;
        ::setrlimit(RLIMIT_NOFILE, &raised);
      }
      ::getrlimit(RLIMIT_NOFILE, &limit);
    }
    budget.soft = limit.rlim_cur;
    budget.hard = limit.rlim_max;
  } else {
    budget.soft = budget.hard = budget.soft_before = 1024;  // the usual default: assume it
  }
  budget.open_now = open_descriptors();
  const uint64_t spare = budget.soft > budget.open_now + kReservedDescriptors
                             ? budget.soft - budget.open_now - kReservedDescriptors
                             : 0;
  budget.connections = static_cast<size_t>(std::min<uint64_t>(max_connections, spare));
  if (budget.connections == 0)
    throw InputError(fmt::format("the limit on open files (ulimit -n: {}) leaves no room for connections: {} are "
                                 "open and {} are kept in reserve (raise it: ulimit -n, or LimitNOFILE= in a systemd "
                                 "unit)",
                                 budget.soft, budget.open_now, kReservedDescriptors));
  return budget;
}

}  // namespace pacer::host::serve
