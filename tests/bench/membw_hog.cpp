// A DRAM-bandwidth hog for benchmarks (never a test): T threads of STREAM's triad, a = b + s·c over
// arrays far larger than any cache, until killed or for S seconds. It stands in for what shares a
// production prover's host: other provers' CPU stages, a witness generator, a database.
//   pacer_membw_hog [threads = 8] [MiB per array = 512] [seconds = 0: until killed]
// Prints the bandwidth it got every 5 s (triad moves 3 arrays per pass: 24 bytes an element).
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop = true; }

}  // namespace

int main(int argc, char** argv) {
  const unsigned threads = argc > 1 ? unsigned(std::atoi(argv[1])) : 8;
  const size_t mib = argc > 2 ? size_t(std::atoll(argv[2])) : 512;
  const double seconds = argc > 3 ? std::atof(argv[3]) : 0;
  if (threads == 0 || threads > 1024 || mib == 0 || mib > (size_t(1) << 20)) {
    std::fprintf(stderr, "usage: %s [threads 1..1024 = 8] [MiB per array = 512] [seconds = 0]\n", argv[0]);
    return 2;
  }
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  const size_t n = mib * (size_t(1) << 20) / sizeof(double);
  std::atomic<uint64_t> bytes{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::vector<double> a(n, 0.0), b(n, 1.0 + t), c(n, 2.0);
      const double s = 3.0;
      while (!g_stop) {
        for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
        bytes += 3 * n * sizeof(double);
        std::swap(a, b);
      }
    });
  const auto start = std::chrono::steady_clock::now();
  uint64_t last = 0;
  auto last_t = start;
  while (!g_stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto now = std::chrono::steady_clock::now();
    if (seconds > 0 && std::chrono::duration<double>(now - start).count() >= seconds) g_stop = true;
    if (now - last_t >= std::chrono::seconds(5)) {
      const uint64_t b = bytes.load();
      std::printf("membw_hog: %u threads, %.1f GB/s\n", threads,
                  double(b - last) / 1e9 / std::chrono::duration<double>(now - last_t).count());
      std::fflush(stdout);
      last = b;
      last_t = now;
    }
  }
  for (auto& th : pool) th.join();
  return 0;
}
