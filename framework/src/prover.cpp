// One proof through its stages (DESIGN.md): synthesize (sparse MatVec), compute_h, the MSMs,
// assembly with blinding. Curve-specific work is templated over the curve traits.
#include "pacer/prover.hpp"

#include <spdlog/spdlog.h>

#include <atomic>
#include <cstring>
#include <future>
#include <nlohmann/json.hpp>
#include <mutex>
#include <random>
#include <thread>

#include "pacer/error.hpp"
#include "pacer/key_check.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/self_check.hpp"
#include "pacer/thread_pool.hpp"

namespace pacer {
namespace {

using namespace pacer::math;
using Clock = std::chrono::steady_clock;

// A buffer of Fr256 from the configured allocator, returned on every path out of a proof.
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

 private:
  Allocator& alloc_;
  Block block_;
  size_t count_ = 0;
};

// Runs one stage under the scheduler: admission, checkpoints (pause time measured), feedback.
class StageRunner {
 public:
  StageRunner(Scheduler& sched, const Backend& backend, JobId job, ProofOutput& out)
      : sched_(sched), backend_(backend), job_(job), out_(out) {}

  template <class Fn>
  void run(Stage stage, uint64_t bytes, Fn&& fn) {
    StageTicket ticket{job_, stage, backend_.resource(stage), bytes, 0};
    auto t0 = Clock::now();
    std::promise<void> admitted;
    auto go = admitted.get_future();
    sched_.admit(ticket, [&admitted] { admitted.set_value(); });
    go.wait();
    auto t1 = Clock::now();
    std::atomic<int64_t> paused_ns{0};
    Checkpoint checkpoint = [&] {
      auto c0 = Clock::now();
      sched_.checkpoint(ticket);
      paused_ns += (Clock::now() - c0).count();
    };
    fn(checkpoint);
    auto t2 = Clock::now();
    StageStats stats;
    stats.queued = t1 - t0;
    stats.paused = std::chrono::nanoseconds(paused_ns.load());
    stats.run = (t2 - t1) - stats.paused;
    stats.bytes = bytes;
    sched_.finished(ticket, stats);
    std::lock_guard lock(mu_);  // the G2 MSM stage ends on another thread
    out_.stage_time[static_cast<int>(stage)] += t2 - t0;
    out_.stages.push_back({stage, t0, t1, t2, stats.paused, bytes, std::hash<std::thread::id>{}(std::this_thread::get_id())});
  }

 private:
  Scheduler& sched_;
  const Backend& backend_;
  JobId job_;
  ProofOutput& out_;
  std::mutex mu_;
};

uint32_t read_u32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

// Record numbers of section 4 bucketed by row: A rows [0, n), B rows [n, 2n). Built once per key
// with a counting sort, so a thread owns whole rows and never races on a[row] or b[row].
struct Prover::RowIndex {
  std::vector<uint32_t> row_start;  // 2n + 1 offsets into records
  std::vector<uint32_t> records;
};

namespace {

std::shared_ptr<Prover::RowIndex> build_row_index(const ProvingKey& key) {
  auto index = std::make_shared<Prover::RowIndex>();
  const size_t rows = 2 * size_t(key.domain_size), record = 12 + key.n8r;
  index->row_start.assign(rows + 1, 0);
  const std::byte* p = key.coeffs.data();
  auto slot = [&](uint32_t i) {
    const std::byte* r = p + size_t(i) * record;
    return size_t(read_u32(r)) * key.domain_size + read_u32(r + 4);
  };
  for (uint32_t i = 0; i < key.n_coeffs; ++i) ++index->row_start[slot(i) + 1];
  for (size_t r = 0; r < rows; ++r) index->row_start[r + 1] += index->row_start[r];
  index->records.resize(key.n_coeffs);
  std::vector<uint32_t> fill(index->row_start.begin(), index->row_start.end() - 1);
  for (uint32_t i = 0; i < key.n_coeffs; ++i) index->records[fill[slot(i)]++] = i;
  return index;
}

// a = A·w, b = B·w over section 4, c = a∘b. Coefficients are stored as v·R² and the witness is
// standard, so one Montgomery product yields v·w in Montgomery form (spec §5.3).
template <class Fr>
void synthesize(const ProvingKey& key, const Prover::RowIndex& index, const Witness& w, std::span<Fr256> a,
                std::span<Fr256> b, std::span<Fr256> c, ThreadPool& pool, const Checkpoint& checkpoint) {
  const size_t n = key.domain_size, record = 12 + key.n8r;
  auto* fa = reinterpret_cast<Fr*>(a.data());
  auto* fb = reinterpret_cast<Fr*>(b.data());
  auto* fc = reinterpret_cast<Fr*>(c.data());
  const std::byte* base = key.coeffs.data();
  constexpr size_t chunk = 1 << 13;  // rows per task
  constexpr uint32_t kAhead = 8;
  const size_t records = index.records.size();
  pool.parallel_for((n + chunk - 1) / chunk, [&](size_t ch) {
    if (checkpoint) checkpoint();
    for (size_t row = ch * chunk, end = std::min(n, row + chunk); row < end; ++row) {
      Fr sums[2];
      for (int m = 0; m < 2; ++m) {
        const size_t slot = m * n + row;
        for (uint32_t k = index.row_start[slot]; k < index.row_start[slot + 1]; ++k) {
          // The witness is read at random (tens of MB at 2^20): fetch a few coefficients ahead,
          // the record two steps before its witness value.
          if (k + 2 * kAhead < records) __builtin_prefetch(base + size_t(index.records[k + 2 * kAhead]) * record);
          if (k + kAhead < records)
            __builtin_prefetch(&w.values[read_u32(base + size_t(index.records[k + kAhead]) * record + 8)]);
          const std::byte* r = base + size_t(index.records[k]) * record;
          Fr coef;
          std::memcpy(coef.v.data(), r + 12, sizeof(Fr256));
          sums[m] += coef * Fr::from_mont(w.values[read_u32(r + 8)]);
        }
      }
      fa[row] = sums[0];
      fb[row] = sums[1];
      fc[row] = sums[0] * sums[1];
    }
  });
}

// Uniform in [0, r) from the OS CSPRNG (std::random_device reads getrandom/urandom on Linux).
template <class Fr>
Fr256 random_scalar() {
  std::random_device rd;
  const size_t bits = limbs_bit_length(Fr::P);
  for (;;) {
    Fr256 k;
    for (auto& l : k) l = (uint64_t(rd()) << 32) | rd();
    k[3] &= (uint64_t(1) << (bits - 192)) - 1;
    if (!limbs_geq(k, Fr::P)) return k;
  }
}

template <class F>
std::string dec(const F& f) { return f.to_decimal(); }

template <class Group>
nlohmann::ordered_json g1_json(const Jacobian<Group>& p) {
  auto a = p.to_affine();
  if (a.is_identity()) return nlohmann::ordered_json::array({"0", "1", "0"});
  return nlohmann::ordered_json::array({dec(a.x), dec(a.y), "1"});
}

template <class Group>
nlohmann::ordered_json g2_json(const Jacobian<Group>& p) {
  auto a = p.to_affine();
  using J = nlohmann::ordered_json;
  // J::array: brace lists of 2-element lists would otherwise become JSON objects.
  if (a.is_identity()) return J::array({J::array({"0", "0"}), J::array({"1", "0"}), J::array({"0", "0"})});
  return J::array({J::array({dec(a.x.c0), dec(a.x.c1)}), J::array({dec(a.y.c0), dec(a.y.c1)}), J::array({"1", "0"})});
}

// Holds one of the backend's lanes for the life of a proof's backend work.
class LeasedLane {
 public:
  explicit LeasedLane(Prover::Lanes& lanes) : lanes_(lanes), lane_(lanes.acquire()) {}
  ~LeasedLane() { lanes_.release(lane_); }
  LeasedLane(const LeasedLane&) = delete;
  LeasedLane& operator=(const LeasedLane&) = delete;
  Lane lane() const { return lane_; }

 private:
  Prover::Lanes& lanes_;
  Lane lane_;
};

template <class Curve>
ProofOutput prove_on(const EngineParts& parts, Prover::Lanes& lanes, ResidentKey& rk, const Prover::RowIndex& index,
                     const Witness& w, const ProveOptions& opt, JobId job) {
  using Fr = typename Curve::Fr;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  using J1 = Jacobian<G1>;
  using J2 = Jacobian<G2>;
  const ProvingKey& key = rk.key();
  const size_t n = key.domain_size;
  ProofOutput out;
  out.job = job;
  StageRunner stage(*parts.scheduler, *parts.backend, job, out);
  Backend& backend = *parts.backend;

  const std::span<const Fr256> wit(w.values);
  PointBytes pa, pb1, pc, ph, pb2;
  const uint64_t g1_bytes = 2 * key.n8q, g2_bytes = 4 * key.n8q;
  std::unique_ptr<FrBuffer> a, b, c;
  Allocator& abc_allocator = parts.staging ? *parts.staging : *parts.allocator;  // the backend copies them
  stage.run(Stage::load, 3 * n * sizeof(Fr256), [&](const Checkpoint&) {
    a = std::make_unique<FrBuffer>(abc_allocator, n, Usage::abc);
    b = std::make_unique<FrBuffer>(abc_allocator, n, Usage::abc);
    c = std::make_unique<FrBuffer>(abc_allocator, n, Usage::abc);
  });
  const LeasedLane leased(lanes);
  const Lane lane = leased.lane();
  // B2 needs only the witness: its G2 MSM (the largest) overlaps synthesis, H and the G1 MSMs as
  // one pool task, so the proof keeps exactly the pool's threads busy (a thread of its own
  // oversubscribed the cores: ~20% more CPU time on 2 cores). Whoever claims it first runs it: a
  // pool worker, or this thread once the G1 work is done (so a pool without workers works too).
  struct G2Task {
    std::atomic<bool> claimed{false};
    std::promise<void> done;
  };
  auto g2_task = std::make_shared<G2Task>();
  auto g2_done = g2_task->done.get_future();
  auto run_g2 = [&, g2_task] {
    if (g2_task->claimed.exchange(true)) return;  // only g2_task is touched once claimed elsewhere
    try {
      stage.run(Stage::msm_g2, uint64_t(key.n_vars) * g2_bytes,
                [&](const Checkpoint& cp) { pb2 = backend.msm_g2(rk, lane, wit, cp); });
      g2_task->done.set_value();
    } catch (...) {
      g2_task->done.set_exception(std::current_exception());
    }
  };
  parts.pool->submit(run_g2);
  // On every way out of this frame the G2 task has either not started or finished: it refers to
  // the frame (a stage that threw while the G2 MSM ran left it writing into freed stack; found by
  // fault injection, tests/integration/fault_injection.sh). Unstarted, it is claimed here, and the
  // queued copy then returns at once, touching only its shared G2Task.
  struct JoinG2 {
    G2Task& task;
    std::future<void>& done;
    ~JoinG2() {
      if (task.claimed.exchange(true) && done.valid()) done.wait();
    }
  } join_g2{*g2_task, g2_done};
  stage.run(Stage::synthesize, uint64_t(key.n_coeffs) * (12 + key.n8r) + 3 * n * sizeof(Fr256),
            [&](const Checkpoint& cp) { synthesize<Fr>(key, index, w, a->span(), b->span(), c->span(), *parts.pool, cp); });
  stage.run(Stage::compute_h, 3 * n * sizeof(Fr256), [&](const Checkpoint& cp) {
    const ThreadPool::Urgent urgent;  // the H MSM waits for it: ahead of the other MSMs' loops
    backend.compute_h(rk, lane, a->span(), b->span(), c->span(), cp);
  });
  stage.run(Stage::msm_g1, (3ull * key.n_vars + n) * g1_bytes, [&](const Checkpoint& cp) {
    pa = backend.msm_g1(rk, lane, Basis::A, wit, cp);
    pb1 = backend.msm_g1(rk, lane, Basis::B1, wit, cp);
    pc = backend.msm_g1(rk, lane, Basis::C, wit.subspan(key.n_public + 1), cp);
    ph = backend.msm_g1(rk, lane, Basis::H, std::span<const Fr256>(a->span()), cp);
  });
  run_g2();
  g2_done.get();  // rethrows what the G2 MSM threw

  stage.run(Stage::assemble, 0, [&](const Checkpoint&) {
    auto g1 = [](std::span<const std::byte> s) { return J1::from(decode_point<G1>(s.data())); };
    auto g2 = [](std::span<const std::byte> s) { return J2::from(decode_point<G2>(s.data())); };
    Fr256 r{}, s{};
    if (!opt.zero_blinding) r = random_scalar<Fr>(), s = random_scalar<Fr>();
    const Fr256 rs = (Fr::from_std(r) * Fr::from_std(s)).to_std();
    const J1 delta1 = g1(key.delta1);
    // Spec §6.6.
    J1 pi_a = g1(key.alpha1) + g1(pa.data) + delta1.mul(r);
    J2 pi_b = g2(key.beta2) + g2(pb2.data) + g2(key.delta2).mul(s);
    J1 b1 = g1(key.beta1) + g1(pb1.data) + delta1.mul(s);
    J1 pi_c = g1(pc.data) + g1(ph.data) + pi_a.mul(s) + b1.mul(r) - delta1.mul(rs);

    nlohmann::ordered_json proof;
    proof["pi_a"] = g1_json(pi_a);
    proof["pi_b"] = g2_json(pi_b);
    proof["pi_c"] = g1_json(pi_c);
    proof["protocol"] = "groth16";
    proof["curve"] = std::string(Curve::json_name);
    out.proof_json = proof.dump(1);
    nlohmann::json pub = nlohmann::json::array();
    for (uint32_t i = 1; i <= key.n_public; ++i) pub.push_back(limbs_to_decimal(w.values[i]));
    out.public_json = pub.dump(1);
  });
  stage.run(Stage::release, 3 * n * sizeof(Fr256), [&](const Checkpoint&) {
    a.reset();
    b.reset();
    c.reset();
  });
  return out;
}

}  // namespace

Prover::Prover(EngineParts parts) : parts_(std::move(parts)) {
  if (!parts_.backend || !parts_.allocator || !parts_.scheduler || !parts_.pool)
    throw FailedError("prover needs a backend, an allocator, a scheduler and a thread pool");
  const unsigned lanes = parts_.backend->info().lanes;
  if (lanes == 0) throw FailedError("backend declares no lanes: it cannot run a proof");
  lanes_ = std::make_unique<Lanes>(lanes);
}

Prover::Lanes::Lanes(unsigned count) {
  for (unsigned i = count; i-- > 0;) free_.push_back(i);
}

Lane Prover::Lanes::acquire() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return !free_.empty(); });
  const Lane lane = free_.back();
  free_.pop_back();
  return lane;
}

void Prover::Lanes::release(Lane lane) {
  {
    std::lock_guard lock(mu_);
    free_.push_back(lane);
  }
  cv_.notify_one();
}

Prover::~Prover() = default;

std::shared_ptr<ResidentKey> Prover::load_key(const std::string& zkey_path) {
  auto key = read_zkey(zkey_path);
  if (parts_.check_key_subgroups) check_key_subgroups(*key, *parts_.pool);
  row_index(*key, key);
  return parts_.backend->load(key);
}

std::shared_ptr<const Prover::RowIndex> Prover::row_index(const ProvingKey& key,
                                                          const std::shared_ptr<const ProvingKey>& owner) {
  std::lock_guard lock(index_mu_);
  for (auto it = indexes_.begin(); it != indexes_.end();)  // forget keys nobody holds any more
    it = it->second.first.expired() ? indexes_.erase(it) : std::next(it);
  auto it = indexes_.find(&key);
  if (it != indexes_.end()) return it->second.second;
  std::shared_ptr<const RowIndex> index = build_row_index(key);
  if (owner) indexes_[&key] = {owner, index};  // a key not loaded through load_key is not cached
  return index;
}

ProofOutput Prover::prove(ResidentKey& key, const Witness& witness, const ProveOptions& options) {
  check_witness_matches(key.key(), witness);
  JobId job = next_job_++;
  const auto index = row_index(key.key(), nullptr);
  ProofOutput out = with_curve(key.key().curve, [&](auto curve) {
    return prove_on<decltype(curve)>(parts_, *lanes_, key, *index, witness, options, job);
  });
  if (parts_.verify_proofs) check_proof_output(key.key(), out, parts_.log.get());
  return out;
}

}  // namespace pacer
