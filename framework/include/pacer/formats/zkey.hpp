#pragma once
// Groth16 proving key as snarkjs writes it (docs/formats.md §5). Points stay in the file
// encoding (Montgomery, little-endian, all-zero = infinity); backends convert them once.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "pacer/formats/binfile.hpp"
#include "pacer/types.hpp"

namespace pacer {

// "bn128" / "bls12381": the names snarkjs writes in JSON.
std::string_view curve_json_name(CurveId c);
// Bytes of a base-field element: 32 (bn254) / 48 (bls12-381). Fr is 32 bytes on both.
uint32_t curve_n8q(CurveId c);
// The scalar-field prime r of a curve, standard form.
const Fr256& curve_scalar_prime(CurveId c);
// The curve whose r is these standard-form little-endian bytes (any width); nullopt if neither.
std::optional<CurveId> curve_from_scalar_prime(std::span<const std::byte> r_le);
// a < b as 256-bit integers (little-endian limbs).
bool fr256_less_than(const Fr256& a, const Fr256& b);

// Highest container versions read, as snarkjs's prover accepts (docs/formats.md §2).
inline constexpr uint32_t kZkeyMaxVersion = 2;
inline constexpr uint32_t kWtnsMaxVersion = 2;
inline constexpr uint32_t kR1csMaxVersion = 1;
// Section 1 protocol ids.
inline constexpr uint32_t kProtocolGroth16 = 1, kProtocolPlonk = 2, kProtocolFflonk = 10;

struct ProvingKey {
  std::string path;
  CurveId curve = CurveId::bn254;
  uint32_t n8q = 0, n8r = 0;
  uint32_t n_vars = 0;       // witness length, wire 0 included
  uint32_t n_public = 0;     // public outputs + public inputs (wire 0 not counted)
  uint32_t domain_size = 0;  // power of two
  // Section 2 points (file encoding): G1 = 2*n8q bytes, G2 = 4*n8q bytes.
  std::span<const std::byte> alpha1, beta1, beta2, gamma2, delta1, delta2;
  // Point sections: IC (n_public+1), A, B1 (n_vars G1), B2 (n_vars G2), C (n_vars-n_public-1), H (domain_size).
  std::span<const std::byte> ic, a, b1, b2, c, h;
  // Section 4 without its u32 count: n_coeffs records {u32 matrix, u32 constraint, u32 signal, n8r value}.
  std::span<const std::byte> coeffs;
  uint32_t n_coeffs = 0;
  std::shared_ptr<const MappedFile> file;  // keeps the spans valid
};

class ThreadPool;

// Reads and validates (protocol groth16, known curve, exact section sizes, record bounds), the
// coefficient records on `pool` where one is given. Throws InputError "<path>: <what is wrong>"
// on any bad input.
std::shared_ptr<const ProvingKey> read_zkey(const std::string& path, ThreadPool* pool = nullptr);

}  // namespace pacer
