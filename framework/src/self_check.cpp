// The prover's self-check (self_check.hpp).
#include "pacer/self_check.hpp"

#include <fmt/format.h>

#include <chrono>
#include <string>

#include "pacer/error.hpp"
#include "pacer/verify.hpp"

namespace pacer {

namespace {

std::string stage_timings(const ProofOutput& out) {
  std::string text;
  for (int s = 0; s < kStageCount; ++s) {
    if (out.stage_time[s].count() == 0) continue;
    text += fmt::format("{}{} {:.3f} ms", text.empty() ? "" : ", ", stage_name(static_cast<Stage>(s)),
                        std::chrono::duration<double, std::milli>(out.stage_time[s]).count());
  }
  return text.empty() ? "no stage recorded" : text;
}

}  // namespace

std::chrono::nanoseconds check_proof_output(const ProvingKey& key, const ProofOutput& out, spdlog::logger* log) {
  const auto start = std::chrono::steady_clock::now();
  const std::string name = fmt::format("the proof of job {}", out.job);
  Verdict verdict;
  try {
    verdict = verify_groth16(key, {out.proof_json, name}, {out.public_json, fmt::format("the public signals of job {}", out.job)});
  } catch (const InputError& e) {  // the prover wrote a document that does not parse: also a wrong proof
    verdict = {false, e.what()};
  }
  const auto took = std::chrono::steady_clock::now() - start;
  if (!verdict.valid) {
    const std::string what = fmt::format("job {}: the proof failed its self-check (verify_proofs) and was not returned: {}",
                                         out.job, verdict.reason);
    if (log) log->error("{} (key {}; stages: {})", what, key.path, stage_timings(out));
    throw FailedError(what);
  }
  if (log)
    log->debug("job {}: proof verified in {:.3f} ms", out.job, std::chrono::duration<double, std::milli>(took).count());
  return std::chrono::duration_cast<std::chrono::nanoseconds>(took);
}

}  // namespace pacer
