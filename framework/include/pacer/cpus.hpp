#pragma once
// How many CPUs this process may use: the default size of the thread pool. Not
// std::thread::hardware_concurrency, which counts the machine's CPUs: under `taskset`, a
// container's cpuset or a cgroup CPU quota (`docker --cpus`, Kubernetes limits) a pool that size
// oversubscribes the cores it is given, and every parallel loop waits on descheduled threads.
#include <optional>
#include <string_view>

namespace pacer {

// min(CPUs in this thread's affinity mask, the cgroup's CPU quota rounded up), at least 1; the
// machine's count where neither can be read.
unsigned available_cpus();

// CPUs a cgroup v2 `cpu.max` line allows ("200000 100000": 2; "150000 100000": 2, rounded up);
// nullopt for "max ..." (no quota) or a line that does not parse.
std::optional<unsigned> cpus_from_cgroup_cpu_max(std::string_view line);

}  // namespace pacer
