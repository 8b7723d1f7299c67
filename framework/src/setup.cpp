// Insecure development setup (pacer/dev/setup.hpp): the points of docs/formats.md §5.4
// computed directly from random τ, α, β, δ.
#include "pacer/dev/setup.hpp"


#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "pacer/dev/fixed_base.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/writers.hpp"
#include "pacer/formats/zkey.hpp"
#include "math/host_curves.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/os_random.hpp"

namespace pacer::dev {

namespace {

// Points per parallel task: one field inversion per window is shared by this many points.
constexpr size_t kTaskPoints = 2048;
// Points computed (and buffered) between two writes to the file.
constexpr size_t kBatchPoints = size_t(1) << 17;

// Uniform nonzero element of Fr from the OS CSPRNG (getrandom), by rejection.
template <class Fr>
Fr random_nonzero() {
  const unsigned top_bits = 64 - unsigned(__builtin_clzll(Fr::P[Fr::N - 1]));
  for (;;) {
    auto x = os_random_value<typename Fr::limbs_t>();
    x[Fr::N - 1] &= top_bits == 64 ? ~0ull : (1ull << top_bits) - 1;
    if (!math::limbs_geq(x, Fr::P) && !math::limbs_is_zero(x)) return Fr::from_std(x);
  }
}

// Montgomery-multiplying a standard-form value by a Montgomery one gives a standard-form
// product; the setup keeps its per-wire scalars in standard form this way (the fixed-base
// multiplications want them so) at one multiplication per term.
template <class Fr>
Fr std_times(const Fr& std_value, const Fr& mont_factor) {
  return std_value * mont_factor;
}

// Runs phases, timing each and reporting progress to the caller's callback.
class Phases {
 public:
  Phases(const SetupProgress& progress, SetupReport& report) : progress_(progress), report_(report) {}
  void start(std::string_view name, uint64_t total) {
    name_ = name;
    total_ = total;
    begin_ = std::chrono::steady_clock::now();
    if (progress_) progress_(name_, 0, total_);
  }
  void advance(uint64_t done) {
    if (progress_ && done < total_) progress_(name_, done, total_);  // stop() reports the end
  }
  void stop() {
    if (progress_) progress_(name_, total_, total_);
    report_.phase_seconds.emplace_back(name_,
                                       std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count());
  }

 private:
  const SetupProgress& progress_;
  SetupReport& report_;
  std::string name_;
  uint64_t total_ = 0;
  std::chrono::steady_clock::time_point begin_;
};

template <class Curve>
class Setup {
  using Fr = typename Curve::Fr;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;

 public:
  Setup(const R1cs& r1cs, ThreadPool& pool, Phases& phases, SetupReport& report)
      : r1cs_(r1cs), pool_(pool), phases_(phases), report_(report) {}

  void run(const std::string& zkey_out, const std::string& vkey_out) {
    const uint64_t n_public = r1cs_.n_public();
    const uint64_t n = setup_domain_size(r1cs_.n_constraints, uint32_t(n_public));
    const unsigned log_n = unsigned(std::countr_zero(n));
    n_ = n;
    report_.domain_size = uint32_t(n);
    report_.n_vars = r1cs_.n_wires;
    report_.n_public = uint32_t(n_public);

    // The prover's roots (math/roots.hpp), without an NTT domain's n-sized tables.
    omega_ = math::root_of_unity<Fr>(log_n);
    omega_2n_ = math::root_of_unity<Fr>(log_n + 1);

    // τ must not be a 2n-th root of unity: the Lagrange formulas divide by τ - ω^k.
    do tau_ = random_nonzero<Fr>();
    while (tau_.pow(math::Limbs<1>{2 * n}) == Fr::one());
    alpha_ = random_nonzero<Fr>();
    beta_ = random_nonzero<Fr>();
    delta_ = random_nonzero<Fr>();

    // Both outputs are made first, so that a path that cannot be written fails before the work.
    FileWriter vkey(vkey_out, size_t(64) << 10);
    lagrange();
    wire_polynomials();
    tables();
    const auto zkey = write_zkey(zkey_out);

    phases_.start("vkey", 1);
    const std::string text = vkey_json(*read_zkey(zkey->temp_path()));  // from the file, like snarkjs's export
    vkey.write(text.data(), text.size());
    vkey.close();
    // Into place together, once both are complete: both or neither.
    commit_together({&zkey->file(), &vkey});
    phases_.stop();
  }

 private:
  // L_c(τ) = (τ^n - 1)/n · ω^c/(τ - ω^c) for the rows in use (constraints and the public rows).
  void lagrange() {
    rows_ = r1cs_.n_constraints + r1cs_.n_public() + 1;
    phases_.start("lagrange", rows_);
    lagrange_.resize(rows_);
    const Fr z_over_n = (tau_.pow(math::Limbs<1>{n_}) - Fr::one()) * Fr::from_u64(n_).inv();
    evaluate_basis(Fr::one(), z_over_n, lagrange_);
    phases_.stop();
  }

  // out[j] = scale · x_j/(τ - x_j), x_j = first·ω^j: the Lagrange basis at τ, with one batch
  // inversion per chunk.
  void evaluate_basis(const Fr& first, const Fr& scale, std::vector<Fr>& out) {
    const size_t chunk = 1 << 14, count = out.size();
    pool_.parallel_for((count + chunk - 1) / chunk, [&](size_t t) {
      const size_t begin = t * chunk, end = std::min(count, begin + chunk);
      Fr x = first * omega_.pow(math::Limbs<1>{begin});
      std::vector<Fr> xs(end - begin), prefix(end - begin);
      Fr acc = Fr::one();
      for (size_t j = begin; j < end; ++j, x *= omega_) {
        xs[j - begin] = x;
        prefix[j - begin] = acc;
        acc *= tau_ - x;
      }
      Fr inv = acc.inv();
      for (size_t j = end; j-- > begin;) {
        const Fr den = tau_ - xs[j - begin];
        out[j] = scale * xs[j - begin] * (inv * prefix[j - begin]);
        inv *= den;
      }
    });
  }

  // u_i, v_i, o_i at τ (standard form) from the r1cs terms, plus the extra rows A[m+i][i] = 1.
  void wire_polynomials() {
    const uint32_t m = r1cs_.n_constraints;
    phases_.start("wires", m);
    u_.assign(r1cs_.n_wires, Fr::zero());
    v_.assign(r1cs_.n_wires, Fr::zero());
    o_.assign(r1cs_.n_wires, Fr::zero());
    for (uint32_t c = 0; c < m; ++c) {
      const Fr& l = lagrange_[c];
      const auto& row = r1cs_.constraints[c];
      for (const auto& t : row.a) u_[t.wire] += std_times(Fr::from_mont(t.coeff), l);
      for (const auto& t : row.b) v_[t.wire] += std_times(Fr::from_mont(t.coeff), l);
      for (const auto& t : row.c) o_[t.wire] += std_times(Fr::from_mont(t.coeff), l);
      if ((c & 0xffff) == 0xffff) phases_.advance(c + 1);
    }
    for (uint32_t i = 0; i <= r1cs_.n_public(); ++i) u_[i] += Fr::from_mont(lagrange_[m + i].to_std());
    lagrange_ = {};
    phases_.stop();
  }

  void tables() {
    const uint64_t g1_points = 3ull * r1cs_.n_wires + n_ + 3, g2_points = r1cs_.n_wires + 2ull;
    const unsigned bits = unsigned(math::limbs_bit_length(Fr::P));
    phases_.start("tables", 2);
    g1_ = std::make_unique<FixedBaseTable<G1>>(Curve::g1_generator(), bits,
                                                FixedBaseTable<G1>::best_window_bits(g1_points, bits), &pool_);
    phases_.advance(1);
    g2_ = std::make_unique<FixedBaseTable<G2>>(Curve::g2_generator(), bits,
                                                FixedBaseTable<G2>::best_window_bits(g2_points, bits), &pool_);
    phases_.stop();
  }

  // β·u_i + α·v_i + o_i (standard form): the C-part of wire i (IC as it is, C divided by δ).
  Fr combined(uint32_t wire) const { return std_times(u_[wire], beta_) + std_times(v_[wire], alpha_) + o_[wire]; }

  // count points scalar(i)·G, encoded and streamed to the open section, in parallel batches.
  template <class Group, class ScalarFn>
  void write_points(ZkeyWriter& out, const FixedBaseTable<Group>& table, uint64_t count, const ScalarFn& scalar) {
    constexpr size_t point_bytes = math::point_bytes<Group>();
    std::vector<std::byte> buffer(std::min<uint64_t>(count, kBatchPoints) * point_bytes);
    const auto caller = std::this_thread::get_id();
    for (uint64_t begin = 0; begin < count; begin += kBatchPoints) {
      const size_t batch = size_t(std::min<uint64_t>(kBatchPoints, count - begin));
      std::atomic<uint64_t> done{0};
      pool_.parallel_for((batch + kTaskPoints - 1) / kTaskPoints, [&](size_t t) {
        const size_t first = t * kTaskPoints, len = std::min(kTaskPoints, batch - first);
        std::vector<Fr256> k(len);
        std::vector<Affine<Group>> points(len);
        for (size_t i = 0; i < len; ++i) k[i] = scalar(begin + first + i).v;
        table.mul_many(k, points);
        for (size_t i = 0; i < len; ++i) math::encode_point(points[i], &buffer[(first + i) * point_bytes]);
        const uint64_t so_far = done += len;
        if (std::this_thread::get_id() == caller) phases_.advance(begin + so_far);  // progress on the caller only
      });
      out.append(std::span(buffer).first(batch * point_bytes));
      phases_.advance(begin + batch);
    }
  }

  // §5.3: the standard integer v·R² mod r (read as Montgomery, it is v·R).
  static Fr256 stored_coefficient(const Fr256& v) { return Fr::mont_mul(Fr::from_std(v).v, Fr::R2); }

  // Records of the constraints' A and B terms, built in parallel per batch of constraints (each
  // record's place follows from the term counts before it) and written in order.
  void write_coefficients(ZkeyWriter& out) {
    constexpr size_t kRecord = 12 + sizeof(Fr256);
    constexpr uint32_t kBatchRows = 1 << 16, kTaskRows = 1 << 10;
    const uint32_t m = r1cs_.n_constraints;
    std::vector<size_t> offset(kBatchRows + 1);
    std::vector<std::byte> buffer;
    for (uint32_t begin = 0; begin < m; begin += std::min(kBatchRows, m - begin)) {
      const uint32_t rows = std::min(kBatchRows, m - begin);
      for (uint32_t i = 0; i < rows; ++i) {
        const auto& row = r1cs_.constraints[begin + i];
        offset[i + 1] = offset[i] + (row.a.size() + row.b.size()) * kRecord;
      }
      buffer.resize(offset[rows]);
      pool_.parallel_for((rows + kTaskRows - 1) / kTaskRows, [&](size_t t) {
        for (uint32_t i = uint32_t(t) * kTaskRows; i < std::min(rows, uint32_t(t + 1) * kTaskRows); ++i) {
          std::byte* at = buffer.data() + offset[i];
          const uint32_t c = begin + i;
          for (uint32_t matrix = 0; matrix < 2; ++matrix)
            for (const auto& term : matrix == 0 ? r1cs_.constraints[c].a : r1cs_.constraints[c].b) {
              const uint32_t head[3] = {matrix, c, term.wire};
              const Fr256 value = stored_coefficient(term.coeff);
              std::memcpy(at, head, sizeof head);
              std::memcpy(at + sizeof head, value.data(), sizeof value);
              at += kRecord;
            }
        }
      });
      out.append_coefficient_records(buffer);
      phases_.advance(begin + rows);
    }
  }

  template <class Group>
  std::vector<std::byte> point(const FixedBaseTable<Group>& table, const Fr& k) {
    std::vector<std::byte> bytes(math::point_bytes<Group>());
    math::encode_point(table.mul(k.to_std()).to_affine(), bytes.data());
    return bytes;
  }

  // The whole key, closed under its temporary name: the caller commits it.
  std::unique_ptr<ZkeyWriter> write_zkey(const std::string& path) {
    const uint32_t n_wires = r1cs_.n_wires, n_public = r1cs_.n_public(), m = r1cs_.n_constraints;
    const Fr delta_inv = delta_.inv();

    ProvingKey header;
    header.curve = Curve::id;
    header.n_vars = n_wires;
    header.n_public = n_public;
    header.domain_size = uint32_t(n_);
    const auto alpha1 = point(*g1_, alpha_), beta1 = point(*g1_, beta_), delta1 = point(*g1_, delta_);
    const auto beta2 = point(*g2_, beta_), gamma2 = point(*g2_, Fr::one()), delta2 = point(*g2_, delta_);
    header.alpha1 = alpha1;
    header.beta1 = beta1;
    header.beta2 = beta2;
    header.gamma2 = gamma2;
    header.delta1 = delta1;
    header.delta2 = delta2;
    auto writer = std::make_unique<ZkeyWriter>(path, header);
    ZkeyWriter& out = *writer;

    phases_.start("IC", n_public + 1);
    out.begin(3);
    write_points(out, *g1_, n_public + 1, [&](uint64_t i) { return combined(uint32_t(i)); });
    out.end();
    phases_.stop();

    // Section 4: each constraint's A then B terms, then the public rows; values v·R² (§5.3).
    uint64_t n_coeffs = n_public + 1ull;
    for (const auto& row : r1cs_.constraints) n_coeffs += row.a.size() + row.b.size();
    if (n_coeffs > UINT32_MAX)
      throw InputError(r1cs_.path + ": " + std::to_string(n_coeffs) + " A and B terms exceed the u32 count of a zkey");
    report_.n_coeffs = uint32_t(n_coeffs);
    phases_.start("coefficients", m);
    out.begin_coefficients(uint32_t(n_coeffs));
    write_coefficients(out);
    for (uint32_t i = 0; i <= n_public; ++i) out.coefficient(0, m + i, i, stored_coefficient(Fr256{1, 0, 0, 0}));
    out.end();
    phases_.stop();

    const auto section = [&](uint32_t id, const char* name, auto& table, uint64_t count, auto scalar) {
      phases_.start(name, count);
      out.begin(id);
      write_points(out, table, count, scalar);
      out.end();
      phases_.stop();
    };
    section(5, "A", *g1_, n_wires, [&](uint64_t i) { return u_[i]; });
    section(6, "B1", *g1_, n_wires, [&](uint64_t i) { return v_[i]; });
    section(7, "B2", *g2_, n_wires, [&](uint64_t i) { return v_[i]; });
    section(8, "C", *g1_, n_wires - n_public - 1ull,
            [&](uint64_t i) { return std_times(combined(uint32_t(n_public + 1 + i)), delta_inv); });
    u_ = {};
    v_ = {};
    o_ = {};

    // H[j] = L'_{2j+1}(τ)/δ over the 2n-th roots: x = ω_2n·ω_n^j, scale (τ^2n - 1)/(2n)/δ.
    std::vector<Fr> h(n_);
    const Fr z2_over_2n = (tau_.pow(math::Limbs<1>{2 * n_}) - Fr::one()) * Fr::from_u64(2 * n_).inv();
    evaluate_basis(omega_2n_, z2_over_2n * delta_inv, h);
    section(9, "H", *g1_, n_, [&](uint64_t j) { return Fr::from_mont(h[j].to_std()); });
    out.close();
    return writer;
  }

  const R1cs& r1cs_;
  ThreadPool& pool_;
  Phases& phases_;
  SetupReport& report_;
  uint64_t n_ = 0, rows_ = 0;
  Fr omega_, omega_2n_, tau_, alpha_, beta_, delta_;
  std::vector<Fr> lagrange_;  // Montgomery
  std::vector<Fr> u_, v_, o_;  // standard form (see std_times)
  std::unique_ptr<FixedBaseTable<G1>> g1_;
  std::unique_ptr<FixedBaseTable<G2>> g2_;
};

}  // namespace

uint64_t setup_domain_size(uint64_t constraints, uint32_t n_public) {
  return std::bit_ceil(constraints + n_public + 1);
}

SetupReport setup_insecure(const R1cs& r1cs, const std::string& zkey_out, const std::string& vkey_out,
                           ThreadPool& pool, const SetupProgress& progress) {
  const uint64_t n = setup_domain_size(r1cs.n_constraints, r1cs.n_public());
  const unsigned log_n = unsigned(std::countr_zero(n));
  math::with_host_curve(r1cs.curve, [&](auto curve) {
    using Curve = decltype(curve);
    if (log_n + 1 > Curve::two_adicity)
      throw InputError(r1cs.path + ": " + std::to_string(r1cs.n_constraints) + " constraints + " +
                       std::to_string(r1cs.n_public()) + " public need a domain of 2^" + std::to_string(log_n) +
                       ", above the 2^" + std::to_string(Curve::two_adicity - 1) + " that " +
                       std::string(Curve::json_name) +
                       " allows (the H points need a 2n-th root of unity); use a smaller circuit");
  });
  if (r1cs.constraints.size() != r1cs.n_constraints)
    throw std::logic_error("setup_insecure: read the r1cs with its constraints");
  SetupReport report;
  Phases phases(progress, report);
  math::with_host_curve(r1cs.curve, [&](auto curve) {
    Setup<decltype(curve)> setup(r1cs, pool, phases, report);
    setup.run(zkey_out, vkey_out);
  });
  return report;
}

}  // namespace pacer::dev
