#pragma once
// Counts, per resident key, the proofs that have yet to synthesise, so that once the host has said
// no more will come (Prover::last_submission) the backend may drop what only synthesis reads (the
// cpu backend's constraint rows: as big as the key's coefficient section, 59 MB at 2^18). A
// one-shot `pacer prove` then holds them only until its last synthesis, not through the MSMs.
#include <mutex>
#include <unordered_map>

namespace pacer {

class ResidentKey;

class SynthesisUsers {
 public:
  // A proof on `key` will synthesise (submitted, or run again after a device failure).
  void add(const ResidentKey* key) {
    std::lock_guard lock(mu_);
    ++uses_[key].pending;
  }
  // A proof's synthesis ended, or the proof ended without one. True: the key was sealed and no
  // proof is left to synthesise on it, so its synthesis data may go now.
  bool done(const ResidentKey* key) {
    std::lock_guard lock(mu_);
    const auto it = uses_.find(key);
    if (it == uses_.end() || --it->second.pending > 0) return false;
    const bool sealed = it->second.sealed;
    uses_.erase(it);  // no entry outlives its proofs: a later key at this address starts afresh
    return sealed;
  }
  // No more proofs will be submitted on `key`. True: none is left to synthesise (release now);
  // otherwise the last done() says so.
  bool seal(const ResidentKey* key) {
    std::lock_guard lock(mu_);
    const auto it = uses_.find(key);
    if (it == uses_.end()) return true;
    it->second.sealed = true;
    return false;
  }

 private:
  struct Use {
    unsigned pending = 0;
    bool sealed = false;
  };
  std::mutex mu_;
  std::unordered_map<const ResidentKey*, Use> uses_;
};

}  // namespace pacer
