// The runner of the backend conformance kit: `pacer_conformance [--backend NAME] [--params 'TOML']
// [Catch2 options]`. NAME defaults to cpu; TOML is the backend's [backend.params] table, e.g.
// --params 'g2 = "gpu"'. Where the backend cannot start here (the cuda backend without a GPU), it
// says why and exits 77, which ctest reports as skipped. Its own file: GCC 12 warns falsely
// (-Wrestrict) inside Catch's session code when it is compiled together with the tests.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "pacer/error.hpp"
#include "subject.hpp"

int main(int argc, char** argv) {
  std::string backend = "cpu", params;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--backend") && has_value) backend = argv[++i];
    else if (!std::strcmp(argv[i], "--params") && has_value) params = argv[++i];
    else rest.push_back(argv[i]);
  }
  try {
    pacer::conformance::make_subject(backend, params);
  } catch (const pacer::InputError& e) {  // no GPU, no driver, no such plugin here
    std::printf("SKIPPED: the %s backend cannot run here: %s\n", backend.c_str(), e.what());
    return 77;
  } catch (const std::exception& e) {  // a bad --params: a failure, not a skip
    std::printf("the %s backend refused its parameters: %s\n", backend.c_str(), e.what());
    return 2;
  }
  std::printf("conformance of the %s backend (%s), MSMs up to 2^%zu\n", backend.c_str(),
              pacer::conformance::subject().backend->info().devices.empty()
                  ? "no device named"
                  : pacer::conformance::subject().backend->info().devices.front().c_str(),
              pacer::conformance::subject().max_log);
  return Catch::Session().run(int(rest.size()), rest.data());
}
