// available_cpus: the default pool size follows the CPUs this process may run on (affinity mask,
// cgroup quota), not the machine's count.
#include <catch2/catch.hpp>

#include <sched.h>

#include <thread>

#include "pacer/cpus.hpp"
#include "pacer/thread_pool.hpp"

using namespace pacer;

TEST_CASE("a cgroup cpu.max line gives its quota in whole CPUs, rounded up", "[pool]") {
  CHECK(cpus_from_cgroup_cpu_max("200000 100000") == 2u);
  CHECK(cpus_from_cgroup_cpu_max("150000 100000\n") == 2u);
  CHECK(cpus_from_cgroup_cpu_max("50000 100000") == 1u);
  CHECK(cpus_from_cgroup_cpu_max("1600000 100000") == 16u);
  // No quota, and lines that do not parse: no limit from the cgroup.
  CHECK(cpus_from_cgroup_cpu_max("max 100000") == std::nullopt);
  CHECK(cpus_from_cgroup_cpu_max("") == std::nullopt);
  CHECK(cpus_from_cgroup_cpu_max("200000") == std::nullopt);
  CHECK(cpus_from_cgroup_cpu_max("200000 0") == std::nullopt);
  CHECK(cpus_from_cgroup_cpu_max("-5 100000") == std::nullopt);
  CHECK(cpus_from_cgroup_cpu_max("2e5 1e5") == std::nullopt);
}

TEST_CASE("a thread pinned to one CPU gets a default pool of one thread", "[pool]") {
  CHECK(available_cpus() >= 1);
  CHECK(available_cpus() <= std::max(1u, std::thread::hardware_concurrency()));
  // The affinity mask is per thread: pin a fresh thread, as `taskset -c N` pins a process.
  unsigned seen = 0, pool_size = 0;
  bool pinned = false;
  std::thread t([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return;
    int first = 0;
    while (!CPU_ISSET(first, &set)) ++first;
    CPU_ZERO(&set);
    CPU_SET(first, &set);
    pinned = sched_setaffinity(0, sizeof set, &set) == 0;
    seen = available_cpus();
    ThreadPool pool(0);
    pool_size = pool.size();
  });
  t.join();
  REQUIRE(pinned);
  CHECK(seen == 1);
  CHECK(pool_size == 1);
}
