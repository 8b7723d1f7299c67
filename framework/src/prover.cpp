// The proof engine's public calls (prover.hpp). Each proof is a graph of stages run on Boost.Asio
// executors under the scheduler: engine/engine_impl.hpp holds the state, engine/dispatch.cpp moves
// a proof through its graph, engine/proof_end.cpp ends it; the stage work itself is in
// engine/stage_bodies.cpp, proof_stages.cpp (assembly) and the backend.
#include <chrono>

#include <spdlog/spdlog.h>

#include "engine/engine_impl.hpp"

namespace pacer {

using Clock = std::chrono::steady_clock;

Prover::Prover(EngineParts parts, EngineOptions options) {
  if (!parts.backend || !parts.allocator || !parts.scheduler || !parts.pool)
    throw FailedError("prover needs a backend, an allocator, a scheduler and a thread pool");
  impl_ = std::make_shared<Impl>(std::move(parts), std::move(options));
}

Prover::~Prover() = default;  // Impl's destructor waits for every proof, then joins the drivers

const EngineParts& Prover::parts() const { return impl_->parts; }

unsigned Prover::jobs_in_flight() const { return impl_->admission.max_in_flight(); }

Prover::LaneHealth Prover::lane_health() const { return impl_->lanes.health(); }

uint64_t Prover::memory_budget_bytes() const { return impl_->admission.budget(); }

uint64_t Prover::proof_bytes(const ResidentKey& resident) const {
  const ProvingKey& key = resident.key();
  const uint64_t n = key.domain_size, vars = key.n_vars;
  const Backend& backend = *impl_->parts.backend;
  // The witness, a/b/c where they live on the host, and what the backend's calls allocate there.
  const uint64_t abc = backend.vectors(resident) == VectorHome::device ? 0 : 3 * n * sizeof(Fr256);
  return vars * sizeof(Fr256) + abc + backend.memory_needs(resident).host_per_proof;
}

std::shared_ptr<ResidentKey> Prover::load_key(const std::string& zkey_path) {
  const auto start = std::chrono::steady_clock::now();
  auto key = read_zkey(zkey_path, &*impl_->parts.pool);
  if (impl_->parts.log)
    impl_->parts.log->debug("{}: header, sections and {} coefficient records read and validated in {:.0f} ms", zkey_path,
                            key->n_coeffs,
                            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  if (impl_->key_checks) return impl_->key_checks->load(std::move(key));
  return impl_->parts.backend->load(key);
}

std::future<ProofOutput> Prover::submit(std::shared_ptr<ResidentKey> key, WitnessSource witness,
                                        const ProveOptions& options) {
  auto job = std::make_shared<Job>();
  job->id = impl_->next_job++;
  job->bytes = proof_bytes(*key);
  if (impl_->key_checks) job->trust = impl_->key_checks->trust_of(*key);
  if (job->trust && job->trust->settled() && job->trust->error()) {
    job->failed = true;  // a key that failed its check: the proof runs no stage
    job->error = job->trust->error();
  }
  job->key = std::move(key);
  job->source = std::move(witness);
  job->options = options;
  Impl::skip_unused_nodes_locked(*job);  // not shared yet
  job->out.job = job->id;
  job->out.submitted_at = Clock::now();
  auto future = job->promise.get_future();
  if (!job->failed) impl_->synthesis_expected(job);
  impl_->submit(std::move(job));
  return future;
}

void Prover::last_submission(const std::shared_ptr<ResidentKey>& key) {
  if (impl_->synthesis_users.seal(key.get()))
    call_and_log_exceptions([&] { impl_->parts.backend->release_synthesis(*key); }, impl_->parts.log.get(),
                            "releasing a key's synthesis data");
}

ProofOutput Prover::prove(ResidentKey& key, const Witness& witness, const ProveOptions& options) {
  check_witness_matches(key.key(), witness);
  // Non-owning: this call waits for the proof, and the proof's tasks end before its future is set.
  std::shared_ptr<ResidentKey> borrowed(&key, [](ResidentKey*) {});
  std::shared_ptr<const Witness> borrowed_witness(&witness, [](const Witness*) {});
  return submit(std::move(borrowed), [borrowed_witness] { return borrowed_witness; }, options).get();
}

}  // namespace pacer
