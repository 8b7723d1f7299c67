#pragma once
// What the hostile-input unit tests share: scratch folders, the shipped fixtures, and the check
// that a call is refused with a one-line InputError, quickly.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "pacer/error.hpp"

// The call throws pacer::InputError whose one-line message contains every fragment.
#define CHECK_REFUSED(expr, ...)                                                        \
  do {                                                                                  \
    CHECK_THROWS_AS(expr, pacer::InputError);                                           \
    for (const std::string& fragment : std::initializer_list<std::string>{__VA_ARGS__}) \
      CHECK_THROWS_WITH(expr, Catch::Matchers::Contains(fragment));                     \
    CHECK_THROWS_WITH(expr, !Catch::Matchers::Contains("\n"));                          \
  } while (0)

namespace hostile {

namespace fs = std::filesystem;
using Bytes = std::vector<char>;

inline const fs::path kCircuits = fs::path(PACER_SOURCE_DIR) / "examples" / "circuits";
inline const fs::path kMul3Bn = kCircuits / "mul3" / "bn128";
inline const fs::path kMul3Bls = kCircuits / "mul3" / "bls12381";

// A fresh folder per test case, removed afterwards.
struct Scratch {
  fs::path dir;
  Scratch() {
    static int counter = 0;
    dir = fs::temp_directory_path() / ("pacer-hostile-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string write(const std::string& name, const Bytes& bytes) const {
    std::ofstream(dir / name, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
    return path(name);
  }
  std::string write(const std::string& name, const std::string& text) const {
    return write(name, Bytes(text.begin(), text.end()));
  }
  std::string fifo(const std::string& name) const {
    REQUIRE(::mkfifo(path(name).c_str(), 0600) == 0);
    return path(name);
  }
};

inline Bytes read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in.good());
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

// "Refused within a second or two": the seconds one call takes to throw InputError (measured once,
// apart from CHECK_REFUSED, which runs the call once per fragment). Generous: the sanitizer job
// and a loaded CI machine are slow; what it guards against took minutes or forever.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kQuickSeconds = 10.0;  // ASan: a 60 KiB config alone parses ~10 times slower
#else
constexpr double kQuickSeconds = 2.0;
#endif
template <class Fn>
double refusal_seconds(Fn&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    fn();
  } catch (const pacer::InputError&) {
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace hostile
