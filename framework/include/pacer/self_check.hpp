#pragma once
// The prover's self-check (`[host] verify_proofs`): a proof is verified against its key before it
// is returned, so a GPU fault, a damaged key or a bug can never hand out a wrong proof as success.
#include <spdlog/logger.h>

#include "pacer/formats/zkey.hpp"
#include "pacer/prover.hpp"

namespace pacer {

// Verifies `out` (proof and public JSON) against `key`'s own verification key. A refused proof is
// logged as an error with the job's stage timings, and throws FailedError naming the job and the
// reason: the caller never sees it as a result. Returns the time the check took.
std::chrono::nanoseconds check_proof_output(const ProvingKey& key, const ProofOutput& out, spdlog::logger* log);

}  // namespace pacer
