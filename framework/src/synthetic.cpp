// Synthetic benchmark circuits (pacer/dev/synthetic.hpp).
#include "pacer/dev/synthetic.hpp"

#include <algorithm>
#include <string>

#include "pacer/error.hpp"
#include "pacer/formats/zkey.hpp"
#include "math/host_curves.hpp"
#include "pacer/math/curves.hpp"

namespace pacer::dev {

namespace {

// Rows generated per task: fixed, so the circuit does not depend on the thread count.
constexpr uint64_t kChunkRows = 1 << 14;
// Half of the terms of a row read one of this many most recent wires.
constexpr uint32_t kLocalWindow = 64;
constexpr unsigned kMaxDensity = 64;

// splitmix64: tiny, fast and well mixed; this is benchmark data, not cryptography.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t bound) { return uint32_t((u128(next()) * bound) >> 64); }
  using u128 = unsigned __int128;
};

Rng stream_rng(uint64_t seed, uint64_t stream) {
  Rng mix{seed ^ (stream * 0xd1b54a32d192ed03ull)};
  return Rng{mix.next()};
}

// Uniform in [1, r) (nonzero) or [0, r), by rejection from the bit length of r.
Fr256 random_scalar(Rng& rng, const Fr256& r, bool nonzero) {
  const unsigned top_bits = 64 - unsigned(__builtin_clzll(r[3]));
  const uint64_t top_mask = top_bits == 64 ? ~0ull : (1ull << top_bits) - 1;
  for (;;) {
    Fr256 x{rng.next(), rng.next(), rng.next(), rng.next() & top_mask};
    if (fr256_less_than(x, r) && (!nonzero || (x[0] | x[1] | x[2] | x[3]) != 0)) return x;
  }
}

// `count` distinct wires below `defined` when there are that many, half of them from the most
// recent kLocalWindow; sorted, as circom writes them.
void random_wires(Rng& rng, uint32_t defined, uint32_t* out, unsigned count) {
  const bool distinct = defined >= count;
  const uint32_t window = std::min(defined, kLocalWindow);
  for (unsigned k = 0; k < count; ++k) {
    for (;;) {
      const uint32_t w = (rng.next() & 1) ? defined - 1 - rng.below(window) : rng.below(defined);
      if (!distinct || std::find(out, out + k, w) == out + k) {
        out[k] = w;
        break;
      }
    }
  }
  std::sort(out, out + count);
}

// The witness, wire by wire: each row only reads wires defined before its output, so one pass
// in order suffices. Values are Montgomery during the pass and standard form at the end.
template <class Curve>
void evaluate_witness(SyntheticCircuit& c, ThreadPool& pool) {
  using Fr = typename Curve::Fr;
  auto& w = c.witness;
  const auto to_mont = [](const Fr256& s) { return Fr::from_std(s).v; };
  for (uint32_t i = 0; i < c.first_internal(); ++i) w[i] = to_mont(w[i]);
  const unsigned d = c.density;
  for (uint32_t row = 0; row < c.n_constraints; ++row) {
    const size_t base = size_t(row) * 2 * d;
    // Montgomery-multiplying a standard-form coefficient by a Montgomery value gives the
    // standard-form product: one multiplication per term instead of two.
    Fr a_std, b_std;
    for (unsigned k = 0; k < d; ++k) {
      a_std += Fr::from_mont(c.coeffs[base + k]) * Fr::from_mont(w[c.wires[base + k]]);
      b_std += Fr::from_mont(c.coeffs[base + d + k]) * Fr::from_mont(w[c.wires[base + d + k]]);
    }
    const Fr b_mont = b_std * Fr::from_mont(Fr::R2);
    w[c.output_wire(row)] = ((a_std * b_mont) * Fr::from_mont(Fr::R2)).v;  // a·b, back to Montgomery
  }
  const size_t n = w.size(), chunk = 1 << 16;
  pool.parallel_for((n + chunk - 1) / chunk, [&](size_t t) {
    for (size_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i) w[i] = Fr::from_mont(w[i]).to_std();
  });
}

}  // namespace

R1csHeader SyntheticCircuit::header() const {
  R1csHeader h;
  h.curve = curve;
  h.n_wires = n_wires();
  h.n_pub_out = 0;
  h.n_pub_in = n_public;
  h.n_prv_in = n_private_inputs;
  h.n_labels = n_wires();
  h.n_constraints = n_constraints;
  return h;
}

R1cs SyntheticCircuit::to_r1cs() const {
  R1cs r;
  const R1csHeader h = header();
  r.curve = curve;
  r.n_wires = h.n_wires;
  r.n_pub_out = h.n_pub_out;
  r.n_pub_in = h.n_pub_in;
  r.n_prv_in = h.n_prv_in;
  r.n_labels = h.n_labels;
  r.n_constraints = n_constraints;
  r.constraints.resize(n_constraints);
  for (uint32_t i = 0; i < n_constraints; ++i) {
    const size_t base = size_t(i) * 2 * density;
    auto& row = r.constraints[i];
    for (unsigned k = 0; k < density; ++k) {
      row.a.push_back({wires[base + k], coeffs[base + k]});
      row.b.push_back({wires[base + density + k], coeffs[base + density + k]});
    }
    row.c.push_back({output_wire(i), Fr256{1, 0, 0, 0}});
  }
  return r;
}

SyntheticCircuit gen_circuit(CurveId curve, uint64_t constraints, unsigned density, unsigned n_public, uint64_t seed,
                             ThreadPool& pool) {
  if (constraints == 0) throw InputError("gen-circuit: --constraints must be at least 1");
  if (density == 0 || density > kMaxDensity)
    throw InputError("gen-circuit: --density " + std::to_string(density) + " is out of range (1.." +
                     std::to_string(kMaxDensity) + " terms per A and B row)");
  const uint64_t wires = 3ull + n_public + constraints;
  if (wires > UINT32_MAX)
    throw InputError("gen-circuit: " + std::to_string(wires) +
                     " wires do not fit the u32 counts of .r1cs/.wtns; use fewer --constraints or --public");
  SyntheticCircuit c;
  c.curve = curve;
  c.n_public = n_public;
  c.n_constraints = uint32_t(constraints);
  c.density = density;
  const size_t terms = size_t(constraints) * 2 * density;
  c.wires.resize(terms);
  c.coeffs.resize(terms);
  c.witness.resize(wires);
  const Fr256& r = curve_scalar_prime(curve);

  // Stream 0: the inputs; stream 1 + k: rows of chunk k.
  Rng inputs = stream_rng(seed, 0);
  c.witness[0] = Fr256{1, 0, 0, 0};
  for (uint32_t i = 1; i < c.first_internal(); ++i) c.witness[i] = random_scalar(inputs, r, false);

  const uint64_t chunks = (constraints + kChunkRows - 1) / kChunkRows;
  pool.parallel_for(chunks, [&](size_t chunk) {
    Rng rng = stream_rng(seed, 1 + chunk);
    const uint64_t end = std::min<uint64_t>(constraints, (chunk + 1) * kChunkRows);
    for (uint64_t row = chunk * kChunkRows; row < end; ++row) {
      const size_t base = size_t(row) * 2 * density;
      const uint32_t defined = c.output_wire(uint32_t(row));  // wires below the row's own output
      random_wires(rng, defined, &c.wires[base], density);
      random_wires(rng, defined, &c.wires[base + density], density);
      for (size_t k = 0; k < 2ull * density; ++k) c.coeffs[base + k] = random_scalar(rng, r, true);
    }
  });

  math::with_host_curve(curve, [&](auto curve_tag) { evaluate_witness<decltype(curve_tag)>(c, pool); });
  return c;
}

SyntheticSizes synthetic_sizes(uint64_t constraints, unsigned density, unsigned n_public) {
  const uint64_t m = constraints, d = density, wires = 1 + uint64_t(n_public) + 2 + m;
  constexpr uint64_t section = 12;  // id and size of a section; the file header is 12 bytes too
  SyntheticSizes s;
  s.memory_bytes = m * 2 * d * (sizeof(uint32_t) + sizeof(Fr256)) + wires * sizeof(Fr256);
  // Per constraint three LCs, each a count and (wire, coefficient) terms: d, d and 1 of them.
  s.r1cs_bytes = section + (section + 64) + (section + m * (3 * 4 + (2 * d + 1) * (4 + 32))) + (section + wires * 8);
  s.wtns_bytes = section + (section + 4 + 32 + 4) + (section + wires * 32);
  return s;
}

void write_circuit_r1cs(const std::string& path, const SyntheticCircuit& c) {
  const Fr256 one{1, 0, 0, 0};
  write_r1cs(path, c.header(), [&](uint32_t i, R1csLcWriter& out) {
    const size_t base = size_t(i) * 2 * c.density;
    out.lc({&c.wires[base], c.density}, {&c.coeffs[base], c.density});
    out.lc({&c.wires[base + c.density], c.density}, {&c.coeffs[base + c.density], c.density});
    const uint32_t output = c.output_wire(i);
    out.lc({&output, 1}, {&one, 1});
  });
}

void write_circuit_wtns(const std::string& path, const SyntheticCircuit& c) {
  write_wtns(path, c.curve, c.witness);
}

}  // namespace pacer::dev
