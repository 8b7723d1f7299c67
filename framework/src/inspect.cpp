// Human-readable summaries of the snarkjs files (`pacer inspect`).
#include "pacer/formats/inspect.hpp"

#include <algorithm>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "pacer/error.hpp"
#include "pacer/formats/binfile.hpp"
#include "pacer/formats/r1cs.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"

namespace pacer {

namespace {

std::string_view zkey_section_name(uint32_t id) {
  switch (id) {
    case 1: return "header";
    case 2: return "groth16 header";
    case 3: return "IC";
    case 4: return "coefficients";
    case 5: return "A";
    case 6: return "B1";
    case 7: return "B2";
    case 8: return "C";
    case 9: return "H";
    case 10: return "contributions";
    default: return "";
  }
}

// PLONK and fflonk keys as snarkjs writes them (its doc/ folder; rapidsnark's zkey_plonk.h).
std::string_view plonk_section_name(uint32_t id) {
  static constexpr std::string_view names[] = {"",   "header", "plonk header", "additions", "A map", "B map",
                                               "C map", "QM",  "QL",           "QR",        "QO",    "QC",
                                               "sigma", "lagrange polynomials", "powers of tau"};
  return id < std::size(names) ? names[id] : "";
}

std::string_view fflonk_section_name(uint32_t id) {
  static constexpr std::string_view names[] = {
      "",   "header", "fflonk header", "additions", "A map",   "B map",   "C map",    "QL",
      "QR", "QM",     "QO",            "QC",        "sigma 1", "sigma 2", "sigma 3", "lagrange polynomials",
      "powers of tau", "C0 polynomial"};
  return id < std::size(names) ? names[id] : "";
}

std::string_view wtns_section_name(uint32_t id) {
  switch (id) {
    case 1: return "header";
    case 2: return "values";
    default: return "";
  }
}

std::string_view r1cs_section_name(uint32_t id) {
  switch (id) {
    case 1: return "header";
    case 2: return "constraints";
    case 3: return "wire to label map";
    case 4: return "custom gates list";
    case 5: return "custom gates uses";
    default: return "";
  }
}

// "key:" padded so that values line up in column 12.
void row(std::ostringstream& out, std::string_view key, const auto& value) {
  out << key << ":" << std::string(key.size() < 11 ? 11 - key.size() : 1, ' ') << value << "\n";
}

// The section table in file order (the order is not fixed; circom writes r1cs as 2, 1, 3).
void write_sections(std::ostringstream& out, const BinFile& bin, std::string_view (*name_of)(uint32_t)) {
  std::vector<std::tuple<uint64_t, uint64_t, uint32_t>> by_offset;
  for (const auto& [id, where] : bin.sections()) by_offset.emplace_back(where.first, where.second, id);
  std::sort(by_offset.begin(), by_offset.end());
  row(out, "sections", by_offset.size());
  out << "  " << std::setw(4) << "id" << std::setw(14) << "offset" << std::setw(14) << "bytes"
      << "  name\n";
  for (const auto& [offset, size, id] : by_offset) {
    const auto name = name_of(id);
    out << "  " << std::setw(4) << id << std::setw(14) << offset << std::setw(14) << size << "  "
        << (name.empty() ? "(unknown)" : name) << "\n";
  }
}

// A key Pacer does not prove (PLONK, fflonk): what its headers say. Both headers start alike:
// n8q, q, n8r, r, nVars, nPublic, domainSize, nAdditions, nConstraints.
void write_other_zkey(std::ostringstream& out, const BinFile& bin, uint32_t protocol) {
  const bool plonk = protocol == kProtocolPlonk, fflonk = protocol == kProtocolFflonk;
  row(out, "kind", plonk    ? "zkey (plonk proving key; Pacer proves groth16 only)"
                   : fflonk ? "zkey (fflonk proving key; Pacer proves groth16 only)"
                            : "zkey (unknown protocol " + std::to_string(protocol) + "; Pacer proves groth16 only)");
  row(out, "version", bin.version());
  if (plonk || fflonk) {
    SectionReader header(bin, 2, plonk ? "plonk header" : "fflonk header");
    const uint32_t n8q = header.u32();
    (void)header.bytes(n8q);
    const uint32_t n8r = header.u32();
    const auto curve = curve_from_scalar_prime(header.bytes(n8r));
    row(out, "curve", curve ? std::string(curve_json_name(*curve)) : std::string("unknown"));
    row(out, "nVars", header.u32());
    row(out, "nPublic", header.u32());
    row(out, "domainSize", header.u32());
    row(out, "nAdditions", header.u32());
    row(out, "nConstraints", header.u32());
  }
  write_sections(out, bin, plonk ? plonk_section_name : fflonk ? fflonk_section_name : zkey_section_name);
}

}  // namespace

std::string inspect_file(const std::string& path) {
  auto file = std::make_shared<const MappedFile>(path);
  const auto bytes = file->bytes();
  const std::string_view magic(reinterpret_cast<const char*>(bytes.data()), bytes.size() < 4 ? bytes.size() : 4);
  std::ostringstream out;
  row(out, "file", path);
  if (magic == "zkey") {
    const BinFile bin(file, "zkey", kZkeyMaxVersion);
    SectionReader protocol_section(bin, 1, "header");
    if (const uint32_t protocol = protocol_section.u32(); protocol != kProtocolGroth16) {
      write_other_zkey(out, bin, protocol);
      return out.str();
    }
    const auto key = read_zkey(path);
    row(out, "kind", "zkey (groth16 proving key)");
    row(out, "version", bin.version());
    row(out, "curve", curve_json_name(key->curve));
    row(out, "nVars", key->n_vars);
    row(out, "nPublic", key->n_public);
    row(out, "domainSize", key->domain_size);
    row(out, "nCoefs", key->n_coeffs);
    write_sections(out, bin, zkey_section_name);
  } else if (magic == "wtns") {
    const BinFile bin(file, "wtns", kWtnsMaxVersion);
    const auto witness = read_wtns(path);
    row(out, "kind", "wtns (witness)");
    row(out, "version", bin.version());
    row(out, "curve", curve_json_name(witness.curve));
    row(out, "values", witness.values.size());
    write_sections(out, bin, wtns_section_name);
  } else if (magic == "r1cs") {
    const BinFile bin(file, "r1cs", kR1csMaxVersion);
    const auto r1cs = read_r1cs(path, /*with_constraints=*/false);
    row(out, "kind", "r1cs (constraint system)");
    row(out, "version", bin.version());
    row(out, "curve", curve_json_name(r1cs.curve));
    row(out, "wires", r1cs.n_wires);
    row(out, "public out", r1cs.n_pub_out);
    row(out, "public in", r1cs.n_pub_in);
    row(out, "private in", r1cs.n_prv_in);
    row(out, "labels", r1cs.n_labels);
    row(out, "constraints", r1cs.n_constraints);
    write_sections(out, bin, r1cs_section_name);
  } else {
    throw InputError(path + ": not a zkey, wtns or r1cs file (magic '" + describe_magic(bytes) + "')");
  }
  return out.str();
}

}  // namespace pacer
