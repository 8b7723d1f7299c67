// Test tool (never installed): proves one witness with r = s = 0, so that the proof is
// deterministic and tests/integration/deterministic.sh can compare it byte for byte with the
// Python reference prover's. Proofs without blinding are not zero-knowledge, so `pacer prove`
// itself has no way to make one.
//   pacer_test_prove_zero_blinding CONFIG ZKEY WITNESS PROOF_OUT PUBLIC_OUT
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "pacer/config.hpp"
#include "pacer/formats/writers.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/logging.hpp"
#include "pacer/runtime.hpp"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s CONFIG ZKEY WITNESS PROOF_OUT PUBLIC_OUT\n", argv[0]);
    return 2;
  }
  try {
    const pacer::Config config = pacer::load_config(argv[1]);
    pacer::Runtime runtime(config, pacer::make_logger(config.host.log_level));
    const auto key = runtime.prover().load_key(argv[2]);
    const pacer::Witness witness = pacer::read_wtns(argv[3], runtime.witness_allocator());
    pacer::ProveOptions options;
    options.zero_blinding = true;
    const pacer::ProofOutput out = runtime.prover().prove(*key, witness, options);
    pacer::FileWriter proof(argv[4]), public_signals(argv[5]);
    proof.write(out.proof_json.data(), out.proof_json.size());
    public_signals.write(out.public_json.data(), out.public_json.size());
    proof.close();
    public_signals.close();
    pacer::commit_together({&proof, &public_signals});
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pacer_test_prove_zero_blinding: %s\n", e.what());
    return 1;
  }
}
