// Backend "cuda": synthesis, compute_h and the G1 MSMs on NVIDIA GPUs (Pacer's own kernels,
// gpu_api.hpp), the G2 MSM on the GPU or, as production GPU provers do, on the host pool with the
// cpu plugin's kernels (param g2). Key points are checked on the CPU and uploaded once per key and
// device, with the constraint rows where they fit; every proof reuses them. A proof then sends its
// witness up once, and its a, b, c and h never leave the GPU (VectorHome::device). Lanes:
// `lanes_per_device` per GPU, each a CUDA stream with its own scratch, so one proof's upload
// overlaps another's kernels.
//
// Explicit choice, no fallback: a config that selects cuda where no GPU is usable fails at start
// with one line saying why. Correctness never rests on the GPU alone: every CUDA error fails the
// proof, and every MSM result is checked to lie on the curve before it is returned.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpu_api.hpp"
#include "pacer/cpu/kernels.hpp"
#include "pacer/error.hpp"
#include "pacer/plugin.hpp"
#include "pacer/thread_pool.hpp"
#include "backend_options.hpp"
#include "resident_key.hpp"

namespace {

using namespace pacer;
using namespace pacer::math;
using namespace pacer::cuda_backend;

cuda::Curve gpu_curve(CurveId id) { return id == CurveId::bn254 ? cuda::Curve::bn254 : cuda::Curve::bls12_381; }

class CudaBackend final : public Backend {
 public:
  CudaBackend(HostServices& host, Options options, std::vector<cuda::DeviceInfo> devices)
      : host_(host), opt_(std::move(options)), devices_(std::move(devices)) {
    if (!host_.pool) throw FailedError("cuda backend needs the host thread pool");
    lanes_.resize(opt_.devices.size() * opt_.lanes_per_device);
    for (auto& lane : lanes_) lane = std::make_unique<LaneSlot>();
    device_lost_ = std::make_unique<std::atomic<bool>[]>(opt_.devices.size());
  }

  BackendInfo info() const override {
    BackendInfo info{"cuda", {}, unsigned(lanes_.size()), {CurveId::bn254, CurveId::bls12_381}, device_bytes(), {}};
    for (Lane lane = 0; lane < lanes_.size(); ++lane) info.lane_devices.push_back(unsigned(device_slot(lane)));
    for (const auto& d : devices_)
      info.devices.push_back(fmt::format("cuda:{} {} (sm_{}{}, {} SMs, {} MiB); {} lanes; G2 MSM on the {}", d.index,
                                         d.name, d.cc_major, d.cc_minor, d.sms, d.total_bytes >> 20,
                                         opt_.lanes_per_device, opt_.g2_on_gpu ? "GPU" : "CPU") +
                                 (opt_.synthesis_on_gpu ? "; synthesis on the GPU" : "; synthesis on the CPU") +
                                 kernels_note());
    return info;
  }

  ResourceClass resource(Stage stage, const ResidentKey& key) const override {
    switch (stage) {
      case Stage::synthesize: return cuda_key(key).rows_on_device() ? ResourceClass::device : ResourceClass::membw;
      case Stage::compute_h:
      case Stage::msm_g1: return ResourceClass::device;
      case Stage::msm_g2: return opt_.g2_on_gpu ? ResourceClass::device : ResourceClass::membw;
      default: return default_resource(stage);
    }
  }

  MemoryNeeds memory_needs(const ResidentKey& key) const override {
    const CudaKey& k = cuda_key(key);
    MemoryNeeds needs;
    needs.device_per_key = k.device_bytes();
    needs.host_per_key = k.host_bytes();
    needs.device_per_proof = lane_scratch_bytes(k.key());
    needs.host_per_proof = k.host_scratch_per_proof(host_.pool->size(), opt_.cpu_kernels);
    return needs;
  }

  VectorHome vectors(const ResidentKey& key) const override {
    return cuda_key(key).rows_on_device() ? VectorHome::device : VectorHome::host;
  }

  std::unique_ptr<ResidentKey> load(std::shared_ptr<const ProvingKey> key) override {
    return with_cpu_curve(key->curve, [&](auto curve) -> std::unique_ptr<ResidentKey> {
      return load_curve<decltype(curve)>(std::move(key));
    });
  }

  void synthesize(ResidentKey& key, Lane lane, std::span<const Fr256> witness, std::span<Fr256> a, std::span<Fr256> b,
                  std::span<Fr256> c, const Checkpoint& checkpoint) override {
    with_cpu_curve(key.key().curve, [&](auto curve) {
      using Curve = decltype(curve);
      auto& k = resident<Curve>(key);
      if (!k.rows_on_device())
        return synthesize_rows<typename Curve::Fr>(k.host_rows(), witness, a, b, c, host_.pool, checkpoint,
                                                     opt_.cpu_kernels);
      if (!a.empty() || !b.empty() || !c.empty())
        throw FailedError("cuda backend: synthesis on the GPU keeps a, b, c there, but host buffers were passed");
      if (witness.size() != k.key().n_vars)
        throw FailedError(fmt::format("cuda backend: synthesize got {} witness values for {} wires", witness.size(),
                                      k.key().n_vars));
      on_lane(lane, k.key(), [&](LaneSlot& slot) {
        witness_on_device(slot, witness);
        slot.gpu->synthesize(*k.on(device_slot(lane)).rows);
      });
    });
  }

  void compute_h(ResidentKey& key, Lane lane, std::span<Fr256> a, std::span<Fr256> b, std::span<Fr256> c,
                 const Checkpoint&) override {
    const ProvingKey& pk = key.key();
    if (a.empty() && b.empty() && c.empty()) {  // the vectors synthesize left on the lane's GPU
      if (!cuda_key(key).rows_on_device())
        throw FailedError("cuda backend: compute_h without vectors, for a key whose synthesis runs on the CPU");
      return on_lane(lane, pk, [&](LaneSlot& slot) { slot.gpu->compute_h_on_device(pk.domain_size); });
    }
    if (a.size() != pk.domain_size || b.size() != a.size() || c.size() != a.size())
      throw FailedError(fmt::format("cuda backend: compute_h got {}/{}/{} values for domain {}", a.size(), b.size(),
                                    c.size(), pk.domain_size));
    on_lane(lane, pk, [&](LaneSlot& slot) {
      slot.gpu->compute_h(a.data()->data(), b.data()->data(), c.data()->data(), a.size());
    });
  }

  PointBytes msm_g1(ResidentKey& key, Lane lane, Basis basis, std::span<const Fr256> scalars,
                    const Checkpoint&) override {
    return with_cpu_curve(key.key().curve, [&](auto curve) {
      using Curve = decltype(curve);
      auto& k = resident<Curve>(key);
      const auto& points = *k.on(device_slot(lane)).g1[static_cast<size_t>(basis)];
      if (basis == Basis::H && scalars.empty() && k.rows_on_device())
        return gpu_msm<typename Curve::G1>(k.key(), lane, points, points.count(), "G1",
                                           [&](LaneSlot& slot, void* out) { slot.gpu->msm_h(points, points.count(), out); });
      return gpu_msm<typename Curve::G1>(k.key(), lane, points, scalars, "G1");
    });
  }

  void end_proof(Lane lane) noexcept override {
    if (lane >= lanes_.size()) return;
    LaneSlot& slot = *lanes_[lane];
    std::lock_guard lock(slot.mu);
    slot.witness = nullptr;
    slot.witness_count = 0;
    if (slot.gpu) slot.gpu->forget_proof();
  }

  PointBytes msm_g2(ResidentKey& key, Lane lane, std::span<const Fr256> scalars,
                    const Checkpoint& checkpoint) override {
    return with_cpu_curve(key.key().curve, [&](auto curve) {
      using Curve = decltype(curve);
      using G2 = typename Curve::G2;
      auto& k = resident<Curve>(key);
      if (opt_.g2_on_gpu) return gpu_msm<G2>(k.key(), lane, *k.on(device_slot(lane)).b2, scalars, "G2");
      const auto bases = k.b2_host();
      check_count(bases.size(), scalars.size(), "G2");
      const Jacobian<G2> sum = msm<G2>(bases, scalars, host_.pool, opt_.cpu_kernels, &checkpoint);
      return to_bytes(sum.to_affine());
    });
  }

 private:
  // A lane's GPU state, made on first use by the proof that holds the lane (so never raced) and
  // made again when a larger key or another curve comes.
  struct LaneSlot {
    std::mutex mu;  // calls of one proof may overlap (G1 MSMs beside compute_h): one at a time
    std::unique_ptr<cuda::Lane> gpu;
    CurveId curve = CurveId::bn254;
    size_t domain = 0, points = 0;
    // The proof's witness as the engine holds it, once uploaded (until end_proof): calls whose
    // scalars lie inside it read the device copy.
    const Fr256* witness = nullptr;
    size_t witness_count = 0;
  };

  // Uploads the proof's witness to the lane's device unless it is there already.
  static void witness_on_device(LaneSlot& slot, std::span<const Fr256> witness) {
    if (slot.witness == witness.data() && slot.witness_count == witness.size()) return;
    slot.gpu->upload_witness(witness.data()->data(), witness.size());
    slot.witness = witness.data();
    slot.witness_count = witness.size();
  }
  // Where `scalars` start in the lane's uploaded witness, if they lie inside it.
  static std::optional<size_t> witness_offset(const LaneSlot& slot, std::span<const Fr256> scalars) {
    if (!slot.witness) return std::nullopt;
    const auto begin = reinterpret_cast<uintptr_t>(slot.witness), end = begin + slot.witness_count * sizeof(Fr256);
    const auto at = reinterpret_cast<uintptr_t>(scalars.data());
    if (at < begin || at + scalars.size() * sizeof(Fr256) > end || (at - begin) % sizeof(Fr256)) return std::nullopt;
    return (at - begin) / sizeof(Fr256);
  }

  // A lane's scratch on its device for a proof on `pk`: ~480 bytes a point (digit keys and values
  // of every window, scalars, compute_h's a/b/c, buckets and the scalar pieces' second bucket
  // array) and the proof's witness (32 bytes a wire).
  static uint64_t lane_scratch_bytes(const ProvingKey& pk) {
    return 480 * std::max<uint64_t>(pk.n_vars, pk.domain_size) + 32 * uint64_t(pk.n_vars);
  }

  static const CudaKey& cuda_key(const ResidentKey& key) {
    auto* k = dynamic_cast<const CudaKey*>(&key);
    if (!k) throw FailedError("cuda backend was handed a key made resident by another backend");
    return *k;
  }

  size_t device_slot(Lane lane) const { return lane % opt_.devices.size(); }

  // Tuned kernels belong in every report; nothing when all are automatic.
  std::string kernels_note() const {
    const cuda::KernelConfig& k = opt_.kernels;
    if (!k.msm_window_bits && !k.msm_chunk && !k.msm_pieces && !k.ntt_pass_bits && !k.ntt_log_cols) return {};
    return fmt::format(
        "; kernels: msm_window_bits {}, msm_chunk {}, msm_pieces {}, ntt_pass_bits {}, ntt_log_cols {} (0 = automatic)",
        k.msm_window_bits, k.msm_chunk, k.msm_pieces, k.ntt_pass_bits, k.ntt_log_cols);
  }

  // Runs fn(slot) on lane `lane`'s GPU state (slot.gpu), sized for `key`, under the lane's lock. CUDA failures
  // become FailedError: the proof fails, the process and the other lanes carry on. A failure that
  // leaves the device unusable (cuda::DeviceLost) becomes DeviceFailedError, now and for every
  // later call on that device: the engine then stops using its lanes and retries the proof on
  // another device.
  template <class Fn>
  void on_lane(Lane lane, const ProvingKey& key, Fn&& fn) {
    if (lane >= lanes_.size())
      throw FailedError(fmt::format("cuda backend: lane {} of {} does not exist", lane, lanes_.size()));
    const size_t dev_slot = device_slot(lane);
    const int device = opt_.devices[dev_slot];
    if (device_lost_[dev_slot])
      throw DeviceFailedError(fmt::format("cuda backend, lane {}: GPU {} failed earlier and is out of service", lane,
                                          device),
                              unsigned(dev_slot));
    LaneSlot& slot = *lanes_[lane];
    std::lock_guard lock(slot.mu);
    const size_t points = std::max<size_t>(key.n_vars, key.domain_size);
    try {
      if (!slot.gpu || slot.curve != key.curve || slot.domain < key.domain_size || slot.points < points) {
        slot.gpu.reset();  // free the old scratch before asking for more
        slot.gpu = std::make_unique<cuda::Lane>(opt_.devices[device_slot(lane)], gpu_curve(key.curve),
                                                key.domain_size, points, opt_.kernels);
        slot.curve = key.curve;
        slot.domain = key.domain_size;
        slot.points = points;
        slot.witness = nullptr;  // a new lane holds no proof's witness
        slot.witness_count = 0;
      }
      fn(slot);
    } catch (const cuda::DeviceLost& e) {
      device_lost_[dev_slot] = true;
      throw DeviceFailedError(fmt::format("cuda backend, lane {}: GPU {} is unusable: {}", lane, device, e.what()),
                              unsigned(dev_slot));
    } catch (const std::exception& e) {
      throw FailedError(fmt::format("cuda backend, lane {} (device {}): {}", lane, device, e.what()));
    }
  }

  // An MSM over host scalars: the device copy of the proof's witness where they lie in it (the
  // whole witness is uploaded by the first call that has it all: A, B1, G2), else copied up.
  template <class Group>
  PointBytes gpu_msm(const ProvingKey& key, Lane lane, const cuda::ResidentPoints& points,
                     std::span<const Fr256> scalars, const char* what) {
    check_count(points.count(), scalars.size(), what);
    return gpu_msm<Group>(key, lane, points, scalars.size(), what, [&](LaneSlot& slot, void* out) {
      if (scalars.size() == key.n_vars && !witness_offset(slot, scalars)) witness_on_device(slot, scalars);
      if (const auto offset = witness_offset(slot, scalars))
        slot.gpu->msm_witness(points, *offset, scalars.size(), out);
      else
        slot.gpu->msm(points, scalars.data()->data(), scalars.size(), out);
    });
  }

  // run(slot, out) computes the MSM of `count` points into out (the kernels' Jacobian layout).
  template <class Group, class Run>
  PointBytes gpu_msm(const ProvingKey& key, Lane lane, const cuda::ResidentPoints& points, size_t count,
                     const char* what, Run&& run) {
    check_count(points.count(), count, what);
    Jacobian<Group> sum;
    static_assert(sizeof(Jacobian<Group>) == 3 * sizeof(typename Group::Field));
    on_lane(lane, key, [&](LaneSlot& slot) {
      if (cuda::jacobian_bytes(points.curve(), points.g2()) != sizeof sum)
        throw FailedError("cuda backend: the kernels' point layout does not match the framework's");
      run(slot, static_cast<void*>(&sum));
    });
    const Affine<Group> result = sum.to_affine();
    // A GPU fault or a kernel bug must not leave the host as a proof: a wrong sum is almost never
    // a curve point, and the check costs microseconds.
    if (!is_valid_key_point(result))
      throw FailedError(fmt::format("cuda backend: the {} MSM on lane {} returned a point that is not on the curve "
                                    "(a GPU fault or a kernel bug); the proof is not returned",
                                    what, lane));
    return to_bytes(result);
  }

  template <class Curve>
  std::unique_ptr<ResidentKey> load_curve(std::shared_ptr<const ProvingKey> key) {
    using G1 = typename Curve::G1;
    using G2 = typename Curve::G2;
    const ProvingKey& pk = *key;
    const std::array<std::pair<std::span<const std::byte>, const char*>, 4> g1_sections = {
        {{pk.a, "5 (A)"}, {pk.b1, "6 (B1)"}, {pk.c, "8 (C)"}, {pk.h, "9 (H)"}}};
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto ms_since = [](Clock::time_point t) {
      return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    };
    // The points that go to the GPU are checked on the CPU as they pass through the staging buffers
    // (once, on the first device): the key is read once, and no point reaches a proof unchecked,
    // since a bad one fails the whole load.
    KeyPoints<G2> b2_host;
    if (!opt_.g2_on_gpu) b2_host = KeyPoints<G2>(pk.b2, host_.pool, opt_.cpu_kernels, pk.path, "7 (B2)");

    uint64_t need = 0;
    for (const auto& [bytes, name] : g1_sections) need += bytes.size();
    if (opt_.g2_on_gpu) need += pk.b2.size();
    const cuda::Curve curve = gpu_curve(pk.curve);
    // What the device has left beside the keys held and the lanes' scratch (made at the first proof).
    const uint64_t lanes_bytes = uint64_t(opt_.lanes_per_device) * lane_scratch_bytes(pk);
    uint64_t room = UINT64_MAX;
    for (size_t slot = 0; slot < opt_.devices.size(); ++slot) {
      const uint64_t held = key_bytes_->load() + lanes_bytes, limit = vram_limit(slot);
      room = std::min(room, limit > held ? limit - held : 0);
    }
    // Synthesis on the GPU where the rows fit beside the key on every device, before window copies:
    // the rows take the CPU's largest stage away, the copies save a tenth of the MSMs' time.
    // The rows are built on the host pool while this thread uploads the points and the GPU makes
    // their window copies (their size is known from the record count alone). An early throw below
    // still waits for the build: std::async's future joins in its destructor.
    double rows_build_ms = 0;
    auto rows_built = std::async(std::launch::async, [&] {
      const auto start = Clock::now();
      auto built = build_constraint_rows(pk, host_.pool);
      rows_build_ms = ms_since(start);
      return built;
    });
    std::shared_ptr<const ConstraintRows> rows;
    bool rows_on_device = false;
    if (opt_.synthesis_on_gpu) {
      const uint64_t rows_need = cuda::rows_bytes(pk.domain_size, pk.n_coeffs);
      if (need + rows_need <= room) {
        rows_on_device = true;
        need += rows_need;
      } else if (host_.log) {
        host_.log->warn("{}: the constraint rows need {} MiB on the GPU and only {} MiB are left beside the key and the "
                        "lanes' scratch ({} MiB short); synthesis runs on the CPU (about {} CPU-seconds a proof more; "
                        "synthesis = \"cpu\" silences this)",
                        pk.path, rows_need >> 20, (room > need ? room - need : 0) >> 20,
                        (need + rows_need - room) >> 20, fmt::format("{:.1f}", double(pk.n_coeffs) * 60e-9));
      }
    }
    // Window copies where they fit beside the key on every device; else none (they only save time).
    std::array<cuda::WindowCopies, 4> copies{};
    uint64_t copies_bytes = 0;
    if (opt_.window_copies) {
      for (size_t b = 0; b < 4; ++b) {
        copies[b] = cuda::plan_window_copies(curve, false, g1_sections[b].first.size() / point_bytes<G1>());
        copies_bytes += uint64_t(copies[b].copies - 1) * g1_sections[b].first.size();
      }
      if (copies_bytes && need + copies_bytes > room) {
        if (host_.log)
          host_.log->warn("{}: MSM window copies would need {} MiB more on the GPU than the {} MiB left; the MSMs run "
                          "without them (slower; msm_window_copies = \"off\" silences this)",
                          pk.path, (need + copies_bytes - room) >> 20, room >> 20);
        copies = {};
        copies_bytes = 0;
      }
      need += copies_bytes;
    }
    std::vector<typename CudaResidentKey<Curve>::OnDevice> on_devices(opt_.devices.size());
    cuda::UploadStaging staging;
    const auto host_copy = [this](void* dst, const void* src, size_t bytes) { parallel_copy(dst, src, bytes); };
    double points_ms = 0, rows_wait_ms = 0, rows_upload_ms = 0;
    for (size_t slot = 0; slot < opt_.devices.size(); ++slot) {
      const int device = opt_.devices[slot];
      const uint64_t held = key_bytes_->load(), limit = vram_limit(slot);
      if (held + need > limit)
        throw InputError(fmt::format(
            "{}: the key needs {} MiB on GPU {} beside the {} MiB held, over the limit of {} MiB "
            "([backend.params] vram_limit_mb, or the device's free memory): use a GPU with more memory, "
            "fewer keys, or g2 = \"cpu\"",
            pk.path, need >> 20, device, held >> 20, limit >> 20));
      auto& on = on_devices[slot];
      try {
        const auto points_start = Clock::now();
        const bool check = slot == 0;
        // The fills go before the rows' build on the pool: the upload is the longer path.
        const ThreadPool::Urgent urgent;
        for (size_t b = 0; b < 4; ++b) {
          const auto [bytes, name] = g1_sections[b];
          on.g1[b] = cuda::upload_points(device, curve, false, bytes.size() / point_bytes<G1>(), staging,
                                         fill_points<G1>(bytes, pk.path, name, check), copies[b]);
        }
        if (opt_.g2_on_gpu)
          on.b2 = cuda::upload_points(device, curve, true, pk.b2.size() / point_bytes<G2>(), staging,
                                      fill_points<G2>(pk.b2, pk.path, "7 (B2)", check));
        points_ms += ms_since(points_start);
        const auto rows_start = Clock::now();
        if (!rows) rows = rows_built.get();
        rows_wait_ms += ms_since(rows_start);
        const auto upload_start = Clock::now();
        if (rows_on_device)
          on.rows = cuda::upload_rows(device, curve, pk.domain_size, rows->start.data(), rows->wire.data(),
                                      rows->coef.data()->data(), rows->terms(), &staging, host_copy);
        rows_upload_ms += ms_since(upload_start);
        cuda::synchronize(device);  // the window copies, computed beside the later uploads
      } catch (const std::exception& e) {
        throw FailedError(fmt::format("{}: cannot make the key resident on GPU {}: {}", pk.path, device, e.what()));
      }
    }
    if (!rows) rows = rows_built.get();  // no device at all: the CPU synthesizes
    if (rows_on_device) rows.reset();     // the devices hold them: no host copy to keep
    if (host_.log)
      host_.log->debug("{}: resident on the GPU in {:.0f} ms: points checked and uploaded {:.0f} ms, constraint rows "
                       "built in {:.0f} ms beside them (then waited {:.0f} ms), rows uploaded {:.0f} ms; staging buffers "
                       "filled in {:.0f} ms, {:.0f} ms waited for their DMA",
                       pk.path, ms_since(t0), points_ms, rows_build_ms, rows_wait_ms, rows_upload_ms, staging.fill_ms(),
                       staging.dma_wait_ms());
    return std::make_unique<CudaResidentKey<Curve>>(std::move(key), std::move(on_devices), std::move(b2_host),
                                                    std::move(rows), key_bytes_);
  }

  // Fills staging chunks of a point section, on the host pool: a copy, then (with `check`) every
  // point of it canonical and on the curve, read back while it is in cache.
  template <class Group>
  cuda::FillChunk fill_points(std::span<const std::byte> section, const std::string& path, const char* name,
                              bool check) const {
    return [this, section, &path, name, check](size_t offset, size_t bytes, void* dst) {
      constexpr size_t kPoints = 1 << 14, pb = point_bytes<Group>();
      const size_t count = bytes / pb, first = offset / pb;
      run_tasks(host_.pool, (count + kPoints - 1) / kPoints, [&](size_t c) {
        const size_t begin = c * kPoints, end = std::min(count, begin + kPoints);
        std::byte* out = static_cast<std::byte*>(dst) + begin * pb;
        std::memcpy(out, section.data() + offset + begin * pb, (end - begin) * pb);
        if (!check) return;
        std::vector<Affine<Group>> points(end - begin);
        const size_t bad = decode_key_points<Group>(out, points.size(), points.data(), opt_.cpu_kernels);
        if (bad < points.size()) throw invalid_key_point(path, name, first + begin + bad);
      });
    };
  }

  // A large host-to-host copy on the pool (into the staging buffers: one thread alone would pace
  // the upload).
  void parallel_copy(void* dst, const void* src, size_t bytes) const {
    constexpr size_t kPiece = size_t(1) << 20;
    run_tasks(host_.pool, (bytes + kPiece - 1) / kPiece, [&](size_t p) {
      const size_t at = p * kPiece;
      std::memcpy(static_cast<std::byte*>(dst) + at, static_cast<const std::byte*>(src) + at,
                  std::min(kPiece, bytes - at));
    });
  }

  uint64_t vram_limit(size_t slot) const {
    if (opt_.vram_limit_bytes) return opt_.vram_limit_bytes;
    const uint64_t reserve = uint64_t(1) << 30;  // CUDA context, lane scratch headroom
    const uint64_t free_at_start = devices_[slot].free_bytes;
    return free_at_start > reserve ? free_at_start - reserve : 0;
  }

  uint64_t device_bytes() const {
    uint64_t total = key_bytes_->load() * opt_.devices.size();
    for (const auto& lane : lanes_) {
      std::lock_guard lock(lane->mu);
      total += lane->gpu ? lane->gpu->device_bytes() : 0;
    }
    return total;
  }

  template <class Curve>
  static CudaResidentKey<Curve>& resident(ResidentKey& key) {
    auto* k = dynamic_cast<CudaResidentKey<Curve>*>(&key);
    if (!k) throw FailedError("cuda backend was handed a key made resident by another backend");
    return *k;
  }

  static void check_count(size_t bases, size_t scalars, const char* what) {
    if (bases != scalars)
      throw FailedError(fmt::format("cuda backend: {} MSM got {} scalars for {} bases", what, scalars, bases));
  }

  template <class Group>
  static PointBytes to_bytes(const Affine<Group>& p) {
    PointBytes out;
    out.size = point_bytes<Group>();
    encode_point(p, out.data.data());
    return out;
  }

  HostServices& host_;
  const Options opt_;
  const std::vector<cuda::DeviceInfo> devices_;  // one per opt_.devices entry, as found at start
  std::vector<std::unique_ptr<LaneSlot>> lanes_;
  std::unique_ptr<std::atomic<bool>[]> device_lost_;  // per device slot: a sticky CUDA error was seen
  // Bytes of resident keys on each device (every device holds the same keys); shared with the
  // keys, which may outlive a lookup but not the plugin.
  std::shared_ptr<std::atomic<uint64_t>> key_bytes_ = std::make_shared<std::atomic<uint64_t>>(0);
};

std::unique_ptr<Backend> make_cuda_backend(const Params& params, HostServices& host) {
  const std::vector<cuda::DeviceInfo> found = cuda::list_devices();
  if (found.empty())
    throw InputError(fmt::format("[backend] plugin = \"cuda\": no usable CUDA device ({}); run where a GPU is "
                                 "visible, or choose plugin = \"cpu\"",
                                 cuda::last_error()));
  Options options = options_from(params, found);
  options.cpu_kernels.allocator = host.allocator;  // the CPU G2 MSM's scratch and host key points
  std::vector<cuda::DeviceInfo> used;
  for (const int d : options.devices)
    for (const auto& f : found)
      if (f.index == d) used.push_back(f);
  for (const auto& d : used)
    if (d.cc_major < 9)
      throw InputError(fmt::format("[backend] plugin = \"cuda\": GPU {} ({}) is sm_{}{}; Pacer's kernels are built for "
                                   "sm_90 (H100/H200)",
                                   d.index, d.name, d.cc_major, d.cc_minor));
  return std::make_unique<CudaBackend>(host, std::move(options), std::move(used));
}

}  // namespace

PACER_PLUGIN(backend, "cuda", "0.1.0", "NVIDIA GPU backend (BN254, BLS12-381; sm_90)", make_cuda_backend)
