// Fuzz target: the .r1cs reader (header only and with its constraints), `pacer inspect`, and for a
// circuit it accepts, the writer: what it writes reads back the same.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "fuzz_input.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/inspect.hpp"
#include "pacer/formats/r1cs.hpp"
#include "pacer/formats/writers.hpp"

namespace {

bool same_lc(const std::vector<pacer::R1csTerm>& a, const std::vector<pacer::R1csTerm>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].wire != b[i].wire || a[i].coeff != b[i].coeff) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path scratch = [] {
    const auto dir = std::filesystem::temp_directory_path() / ("pacer-fuzz-r1cs-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::atexit([] { std::filesystem::remove_all(std::filesystem::temp_directory_path() /
                                                  ("pacer-fuzz-r1cs-" + std::to_string(::getpid()))); });
    return dir;
  }();
  const pacer::fuzz::MemFile file(data, size);
  try {
    (void)pacer::read_r1cs(file.path(), /*with_constraints=*/false);
    (void)pacer::inspect_file(file.path());
    const pacer::R1cs r1cs = pacer::read_r1cs(file.path());
    const std::string copy = (scratch / "copy.r1cs").string();
    pacer::write_r1cs(copy, r1cs);
    const pacer::R1cs again = pacer::read_r1cs(copy);
    bool same = again.curve == r1cs.curve && again.n_wires == r1cs.n_wires && again.n_public() == r1cs.n_public() &&
                again.n_constraints == r1cs.n_constraints;
    for (size_t i = 0; same && i < r1cs.constraints.size(); ++i)
      same = same_lc(again.constraints[i].a, r1cs.constraints[i].a) &&
             same_lc(again.constraints[i].b, r1cs.constraints[i].b) &&
             same_lc(again.constraints[i].c, r1cs.constraints[i].c);
    if (!same) std::abort();  // the writer and the reader disagree
  } catch (const pacer::InputError&) {
  }
  return 0;
}
