#pragma once
// One proof in the engine: its key, witness, options and the progress of its graph, and the
// host buffers its stages share.
#include <array>
#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "../keys/key_checks.hpp"
#include "../proof_stages.hpp"
#include "pacer/allocator.hpp"
#include "pacer/error.hpp"
#include "pacer/prover.hpp"
#include "proof_graph.hpp"

namespace pacer {

// A buffer of Fr256 from an allocator, returned when it goes out of scope.
class FrBuffer {
 public:
  FrBuffer(Allocator& alloc, size_t count, Usage usage) : alloc_(alloc) {
    block_ = alloc_.allocate(count * sizeof(Fr256), AllocHints{usage, false, 64});
    if (block_.bytes < count * sizeof(Fr256)) {
      alloc_.deallocate(block_);
      throw FailedError("allocator returned " + std::to_string(block_.bytes) + " bytes for a request of " +
                        std::to_string(count * sizeof(Fr256)));
    }
    count_ = count;
  }
  ~FrBuffer() { alloc_.deallocate(block_); }
  FrBuffer(const FrBuffer&) = delete;
  FrBuffer& operator=(const FrBuffer&) = delete;
  std::span<Fr256> span() { return {reinterpret_cast<Fr256*>(block_.data), count_}; }
  size_t bytes() const { return block_.bytes; }

 private:
  Allocator& alloc_;
  Block block_;
  size_t count_ = 0;
};

// One proof in the engine. Held by shared_ptr by every task of it, so its buffers live as long as
// the last task that can touch them.
struct Job {
  enum class NodeState : uint8_t { waiting, asked, done, skipped };

  JobId id = 0;
  std::shared_ptr<ResidentKey> key;
  std::shared_ptr<KeyTrust> trust;  // the key's subgroup check, while it has not passed
  WitnessSource source;
  ProveOptions options;
  uint64_t bytes = 0;  // admission estimate
  std::promise<ProofOutput> promise;

  // Under mu: the graph's progress.
  std::mutex mu;
  std::array<NodeState, kNodes> state{};
  uint16_t done_mask = 0;
  unsigned active = 0;  // nodes asked of the scheduler and not yet ended
  bool failed = false, lane_asked = false, has_lane = false, lane_returned = false, finished = false;
  // A device of the backend failed under this proof: run it again, from load, once it has wound
  // down (attempt 2 of kMaxAttempts).
  bool retry = false;
  unsigned attempt = 1;
  bool synthesis_pending = false;  // counted in Impl::synthesis_users until its synthesis ends
  Lane lane = 0;
  std::exception_ptr error;
  ProofOutput out;

  // Written by stage bodies; the graph's dependencies order every write before its reads.
  std::shared_ptr<const Witness> witness;
  std::unique_ptr<FrBuffer> a, b, c;  // null where the backend keeps the vectors on its device
  ProofPoints points;
};

// A proof whose device failed runs once more elsewhere; a second failure is the proof's.
constexpr unsigned kMaxAttempts = 2;

}  // namespace pacer
