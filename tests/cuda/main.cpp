// The Catch2 runner of the cuda tests: where the cuda backend cannot start (no GPU, no driver),
// say why and exit 77, which ctest reports as skipped. Its own file: GCC 12 warns falsely
// (-Wrestrict) inside Catch's session code when it is compiled together with the tests.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

namespace pacer::test {
bool cuda_backend_usable(std::string& why);  // backend_equivalence.cpp
}

int main(int argc, char** argv) {
  std::string why;
  if (!pacer::test::cuda_backend_usable(why)) {
    std::printf("SKIPPED: the cuda backend cannot run here: %s\n", why.c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
