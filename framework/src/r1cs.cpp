// .r1cs reader (docs/formats.md §3). circom writes the sections in the order 2, 1, 3, so
// everything goes through the section table.
#include "pacer/formats/r1cs.hpp"

#include <string>

#include "pacer/error.hpp"
#include "pacer/formats/binfile.hpp"
#include "pacer/formats/zkey.hpp"

namespace pacer {

namespace {

void read_header(const BinFile& bin, R1cs& out) {
  const std::string& path = bin.path();
  SectionReader header(bin, 1, "header");
  const uint32_t n8 = header.u32();
  if (n8 != sizeof(Fr256))
    throw InputError(path + ": field elements of " + std::to_string(n8) + " bytes; expected 32 (bn128, bls12381)");
  const auto curve = curve_from_scalar_prime(header.bytes(n8));
  if (!curve) throw InputError(path + ": unknown scalar prime; Pacer supports bn128 and bls12381");
  out.curve = *curve;
  out.n_wires = header.u32();
  out.n_pub_out = header.u32();
  out.n_pub_in = header.u32();
  out.n_prv_in = header.u32();
  out.n_labels = header.u64();
  out.n_constraints = header.u32();
  header.expect_end();
  // Wire 0 and the inputs and outputs are all wires: they cannot outnumber them.
  const uint64_t io_wires = 1ull + out.n_pub_out + out.n_pub_in + out.n_prv_in;
  if (io_wires > out.n_wires)
    throw InputError(path + ": 1 + nPubOut + nPubIn + nPrvIn = " + std::to_string(io_wires) + " exceeds nWires " +
                     std::to_string(out.n_wires));
}

// Section 3 maps each wire to its label, 8 bytes a wire: the one place in the file whose size
// follows from nWires. Checking it bounds nWires by the file, so that no header can make `pacer
// setup` allocate and write gigabytes for a circuit of a few bytes. circom always writes it.
void check_wire_map(const BinFile& bin, const R1cs& out) {
  const auto map = bin.section(3, "wire to label map");
  const uint64_t expected = uint64_t{out.n_wires} * 8;
  if (map.size() != expected)
    throw InputError(bin.path() + ": section 3 (wire to label map) has " + std::to_string(map.size()) +
                     " bytes but nWires = " + std::to_string(out.n_wires) + " wires of 8 bytes need " +
                     std::to_string(expected) + ": the file is damaged; compile the circuit again");
}

std::vector<R1csTerm> read_lc(SectionReader& section, const R1cs& out, const Fr256& r, uint32_t constraint,
                              char matrix) {
  const uint32_t n_terms = section.u32();
  // Each term takes 36 bytes; checking first keeps a corrupt count from reserving gigabytes.
  if (uint64_t{n_terms} * 36 > section.remaining())
    throw InputError(out.path + ": constraint " + std::to_string(constraint) + " " + matrix + ": " +
                     std::to_string(n_terms) + " terms run past the end of section 2 (constraints)");
  std::vector<R1csTerm> terms(n_terms);
  for (auto& term : terms) {
    term.wire = section.u32();
    term.coeff = le::fr256(section.bytes(sizeof(Fr256)), 0);
    if (term.wire >= out.n_wires)
      throw InputError(out.path + ": constraint " + std::to_string(constraint) + " " + matrix + ": wire " +
                       std::to_string(term.wire) + " is not below nWires " + std::to_string(out.n_wires));
    if (!fr256_less_than(term.coeff, r))
      throw InputError(out.path + ": constraint " + std::to_string(constraint) + " " + matrix + ": coefficient of wire " +
                       std::to_string(term.wire) + " is not below the scalar prime r");
  }
  return terms;
}

void read_constraints(const BinFile& bin, R1cs& out) {
  SectionReader section(bin, 2, "constraints");
  const Fr256& r = curve_scalar_prime(out.curve);
  // An empty constraint takes 12 bytes (three empty LCs): bound the reservation by the data.
  if (uint64_t{out.n_constraints} * 12 > section.remaining())
    throw InputError(bin.path() + ": section 2 (constraints) has " + std::to_string(section.remaining()) +
                     " bytes, too few for " + std::to_string(out.n_constraints) + " constraints");
  out.constraints.resize(out.n_constraints);
  for (uint32_t i = 0; i < out.n_constraints; ++i) {
    out.constraints[i].a = read_lc(section, out, r, i, 'A');
    out.constraints[i].b = read_lc(section, out, r, i, 'B');
    out.constraints[i].c = read_lc(section, out, r, i, 'C');
  }
  section.expect_end();
}

}  // namespace

R1cs read_r1cs(const std::string& path, bool with_constraints) {
  const BinFile bin(path, "r1cs", kR1csMaxVersion);
  R1cs out;
  out.path = path;
  read_header(bin, out);
  check_wire_map(bin, out);
  if (with_constraints) {
    read_constraints(bin, out);
  } else {
    (void)bin.section(2, "constraints");  // present, even if not parsed
  }
  return out;
}

}  // namespace pacer
