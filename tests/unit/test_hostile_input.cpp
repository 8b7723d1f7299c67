// Hostile input: every class a hostile probe found is refused at its root with a one-line
// InputError, quickly, without blocking, allocating by a header's word or touching other files:
// damaged zkey header points, deep or huge configs, FIFOs and devices as inputs or outputs,
// outputs that are inputs, header counts the sections cannot hold, refused threads.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "pacer/config.hpp"
#include "pacer/error.hpp"
#include "pacer/files.hpp"
#include "pacer/formats/binfile.hpp"
#include "pacer/formats/r1cs.hpp"
#include "pacer/formats/writers.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/thread_pool.hpp"

#include "hostile_helpers.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using namespace hostile;

namespace {

void put_u32(Bytes& b, uint64_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

uint64_t section_offset(const fs::path& file, std::string_view magic, uint32_t id) {
  return pacer::BinFile(file.string(), magic, 2).sections().at(id).first;
}

}  // namespace

TEST_CASE("hostile: every damaged point of the zkey's groth16 header is refused, naming it", "[hostile]") {
  Scratch tmp;
  for (const fs::path& dir : {kMul3Bn, kMul3Bls}) {
    const fs::path original = dir / "circuit.zkey";
    const Bytes good = read_bytes(original);
    const uint64_t header = section_offset(original, "zkey", 2);
    const uint32_t n8q = dir == kMul3Bn ? 32 : 48;
    const uint64_t points = header + 4 + n8q + 4 + 32 + 12;  // after q, r and nVars, nPublic, domainSize
    struct Point {
      const char* name;
      uint64_t offset, bytes;
    };
    const uint64_t g1 = 2 * n8q, g2 = 4 * n8q;
    const Point layout[] = {{"alpha1", 0, g1},          {"beta1", g1, g1},          {"beta2", 2 * g1, g2},
                            {"gamma2", 2 * g1 + g2, g2}, {"delta1", 2 * g1 + 2 * g2, g1}, {"delta2", 3 * g1 + 2 * g2, g2}};
    for (const Point& p : layout) {
      INFO(dir << " " << p.name);
      Bytes bad = good;
      bad[points + p.offset + 5] ^= 0x10;  // off the curve
      std::string path = tmp.write("header.zkey", bad);
      CHECK_REFUSED(pacer::read_zkey(path), path, std::string("section 2 (groth16 header), point ") + p.name,
                    "not a point of the curve");
      std::fill(bad.begin() + long(points + p.offset + n8q - 1), bad.begin() + long(points + p.offset + n8q), 0xff);
      path = tmp.write("header.zkey", bad);  // a coordinate not below q
      CHECK_REFUSED(pacer::read_zkey(path), path, p.name);
      bad = good;
      std::fill(bad.begin() + long(points + p.offset), bad.begin() + long(points + p.offset + p.bytes), 0);
      path = tmp.write("header.zkey", bad);  // on the curve, but no key has it there
      CHECK_REFUSED(pacer::read_zkey(path), path, p.name, "point at infinity");
    }
  }
}

TEST_CASE("hostile: a header point on the curve but outside the prime-order subgroup is refused", "[hostile]") {
  // bls12-381 G1 has cofactor ~2^126: a point from y^2 = x^3 + 4 for a small x is on the curve
  // and almost surely outside the subgroup. q = 3 mod 4, so y = rhs^((q+1)/4).
  using Fq = pacer::math::Bls12_381::Fq;
  using G1 = pacer::math::Bls12_381::G1;
  auto exponent = Fq::P;
  exponent[0] += 1;  // q is odd and its low limb is not all ones: no carry
  exponent = pacer::math::limbs_shr(exponent, 2);
  pacer::math::Affine<G1> point;
  for (uint64_t x = 1;; ++x) {
    const Fq fx = Fq::from_u64(x), rhs = fx.sqr() * fx + G1::b(), y = rhs.pow(exponent);
    if (y.sqr() == rhs) {
      point = pacer::math::Affine<G1>::of(fx, y);
      break;
    }
  }
  REQUIRE(point.on_curve());
  Scratch tmp;
  const fs::path original = kMul3Bls / "circuit.zkey";
  Bytes bad = read_bytes(original);
  const uint64_t alpha1 = section_offset(original, "zkey", 2) + 4 + 48 + 4 + 32 + 12;
  pacer::math::encode_point(point, reinterpret_cast<std::byte*>(bad.data() + alpha1));
  const std::string path = tmp.write("subgroup.zkey", bad);
  CHECK_REFUSED(pacer::read_zkey(path), path, "point alpha1 is not in the curve's prime-order subgroup");
}

TEST_CASE("hostile: a damaged IC point and a domain beyond the curve's roots of unity are refused", "[hostile]") {
  Scratch tmp;
  const fs::path original = kMul3Bn / "circuit.zkey";
  const Bytes good = read_bytes(original);
  Bytes bad = good;
  bad[section_offset(original, "zkey", 3) + 64 + 7] ^= 0x20;  // IC[1].x
  std::string path = tmp.write("ic.zkey", bad);
  CHECK_REFUSED(pacer::read_zkey(path), path, "section 3 (IC), point 1 is not a point of the curve");

  bad = good;
  put_u32(bad, section_offset(original, "zkey", 2) + 4 + 32 + 4 + 32 + 8, 1u << 29);  // domainSize
  path = tmp.write("domain.zkey", bad);
  CHECK_REFUSED(pacer::read_zkey(path), path, "domainSize 536870912 exceeds the 2^28 roots of unity of bn128");
}

TEST_CASE("hostile: header counts are checked against the sections before anything is allocated", "[hostile]") {
  Scratch tmp;
  SECTION("an r1cs claiming 2^24 wires with a map for 7") {
    const fs::path original = kMul3Bn / "circuit.r1cs";
    Bytes bad = read_bytes(original);
    put_u32(bad, section_offset(original, "r1cs", 1) + 4 + 32, 1u << 24);  // nWires
    const std::string path = tmp.write("wires.r1cs", bad);
    CHECK_REFUSED(pacer::read_r1cs(path), path, "section 3 (wire to label map) has 56 bytes but nWires = 16777216");
    CHECK_REFUSED(pacer::read_r1cs(path, /*with_constraints=*/false), path, "section 3");
    CHECK(refusal_seconds([&] { (void)pacer::read_r1cs(path); }) < kQuickSeconds);
  }
  SECTION("an r1cs without its wire map") {
    const fs::path original = kMul3Bn / "circuit.r1cs";
    Bytes bad = read_bytes(original);
    put_u32(bad, section_offset(original, "r1cs", 3) - 12, 9);  // section 3 renamed to an unknown id
    const std::string path = tmp.write("nomap.r1cs", bad);
    CHECK_REFUSED(pacer::read_r1cs(path), path, "missing section 3 (wire to label map)");
  }
  SECTION("an r1cs claiming 2^32-1 constraints") {
    const fs::path original = kMul3Bn / "circuit.r1cs";
    Bytes bad = read_bytes(original);
    put_u32(bad, section_offset(original, "r1cs", 1) + 4 + 32 + 4 * 4 + 8, 0xffffffffu);
    const std::string path = tmp.write("constraints.r1cs", bad);
    CHECK_REFUSED(pacer::read_r1cs(path), path, "too few for 4294967295 constraints");
  }
  SECTION("a witness claiming 2^32-1 values (128 GiB)") {
    const fs::path original = kMul3Bn / "witness.wtns";
    Bytes bad = read_bytes(original);
    put_u32(bad, section_offset(original, "wtns", 1) + 36, 0xffffffffu);
    const std::string path = tmp.write("values.wtns", bad);
    CHECK_REFUSED(pacer::read_wtns(path), path, "4294967295 values of 32 bytes need");
    CHECK(refusal_seconds([&] { (void)pacer::read_wtns(path); }) < kQuickSeconds);
  }
  SECTION("a zkey claiming 2^32-1 coefficients") {
    const fs::path original = kMul3Bn / "circuit.zkey";
    Bytes bad = read_bytes(original);
    put_u32(bad, section_offset(original, "zkey", 4), 0xffffffffu);
    const std::string path = tmp.write("coefs.zkey", bad);
    CHECK_REFUSED(pacer::read_zkey(path), path, "4294967295 records of 44 bytes need");
  }
}

TEST_CASE("hostile: FIFOs, devices and folders are refused as inputs without blocking", "[hostile]") {
  Scratch tmp;
  const std::string fifo = tmp.fifo("input.fifo");
  CHECK(refusal_seconds([&] { (void)pacer::read_zkey(fifo); }) < kQuickSeconds);
  CHECK_REFUSED(pacer::read_zkey(fifo), fifo, "is a FIFO, not a regular file");
  CHECK_REFUSED(pacer::read_wtns(fifo), fifo, "is a FIFO");
  CHECK_REFUSED(pacer::read_r1cs(fifo), fifo, "is a FIFO");
  CHECK_REFUSED(pacer::load_config(fifo), fifo, "is a FIFO");
  CHECK_REFUSED(pacer::read_zkey("/dev/zero"), "/dev/zero", "is a character device, not a regular file");
  CHECK_REFUSED(pacer::load_config("/dev/zero"), "/dev/zero", "is a character device");
  CHECK_REFUSED(pacer::load_config(tmp.dir), tmp.dir.string(), "is a folder, not a regular file");
}

TEST_CASE("hostile: an output that is an input, a device, a FIFO or another output is refused", "[hostile]") {
  Scratch tmp;
  const std::string zkey = tmp.write("k.zkey", read_bytes(kMul3Bn / "circuit.zkey"));
  const std::vector<pacer::NamedFile> inputs = {{"--zkey", zkey}, {"--witness", (kMul3Bn / "witness.wtns").string()}};
  const auto check = [&](const std::string& out) { pacer::check_outputs(inputs, {{"--proof", out}}); };

  CHECK_REFUSED(check(zkey), zkey, "is the same file as the input --zkey");
  fs::create_hard_link(zkey, tmp.path("hard.json"));
  CHECK_REFUSED(check(tmp.path("hard.json")), "hard.json", "same file as the input --zkey");
  fs::create_symlink(zkey, tmp.path("soft.json"));
  CHECK_REFUSED(check(tmp.path("soft.json")), "soft.json", "same file as the input --zkey");
  const std::string fifo = tmp.fifo("out.fifo");
  CHECK_REFUSED(check(fifo), "out.fifo", "is a FIFO, not a regular file");
  CHECK_REFUSED(check("/dev/null"), "/dev/null", "is a character device");
  CHECK_REFUSED(check(tmp.dir.string()), "is a folder");
  CHECK_REFUSED(check(tmp.path("no/such/folder/proof.json")), "folder", "does not exist");
  CHECK_REFUSED(pacer::check_outputs(inputs, {{"--proof", tmp.path("p.json")}, {"--public", tmp.path("./p.json")}}),
                "p.json", "named by both --proof and --public");
  CHECK_NOTHROW(check(tmp.path("new.json")));
  CHECK_NOTHROW(check(tmp.write("old.json", std::string("{}"))));
}

TEST_CASE("hostile: the writers never replace a FIFO or a device and leave no temporary file", "[hostile]") {
  Scratch tmp;
  const std::string fifo = tmp.fifo("key.fifo");
  const std::vector<pacer::Fr256> values{{1, 0, 0, 0}};
  CHECK_REFUSED(pacer::write_wtns(fifo, pacer::CurveId::bn254, values), fifo, "is a FIFO, not a regular file");
  struct stat st {};
  REQUIRE(::stat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK(std::distance(fs::directory_iterator(tmp.dir), fs::directory_iterator()) == 1);

  // Through a symlink, the target gets the content and the link stays.
  const std::string target = tmp.write("target.wtns", std::string("old"));
  fs::create_symlink(target, tmp.path("link.wtns"));
  pacer::write_wtns(tmp.path("link.wtns"), pacer::CurveId::bn254, values);
  CHECK(fs::is_symlink(tmp.path("link.wtns")));
  CHECK(std::ranges::equal(pacer::read_wtns(target).values, values));
  CHECK(std::distance(fs::directory_iterator(tmp.dir), fs::directory_iterator()) == 3);
}

TEST_CASE("hostile: deep, long or huge configs are refused before parsing, at once", "[hostile]") {
  Scratch tmp;
  const auto refused = [&](const std::string& text, const std::string& fragment) {
    const std::string path = tmp.write("config.toml", text);
    CHECK_REFUSED(pacer::load_config(path), path, fragment);
    CHECK(refusal_seconds([&] { pacer::load_config(path); }) < kQuickSeconds);
  };
  refused("a = " + std::string(30000, '[') + std::string(30000, ']') + "\n", "config.toml:1: arrays and tables nested more than 32 deep");
  std::string inline_tables = "[host]\nx = ";
  for (int i = 0; i < 12000; ++i) inline_tables += "{a = ";
  refused(inline_tables + "\n", "config.toml:2: arrays and tables nested more than 32 deep");
  std::string dotted = "\n\na";
  for (int i = 0; i < 20000; ++i) dotted += ".a";
  refused(dotted.substr(0, 4000) + " = 1\n", "config.toml:3: a dotted key of more than 32 parts");
  refused("[a" + dotted.substr(2, 200) + "]\n", "a dotted key of more than 32 parts");
  refused("plugin_dirs = [" + std::string(5000, ' ') + "]\n", "config.toml:1: line longer than 4096 bytes");
  std::string huge;
  while (huge.size() <= (64u << 10)) huge += "# a comment line of a config that is far too big for one\n";
  refused(huge, "bytes, more than the 65536 a config file may have");

  // Brackets, braces and dots inside strings and comments do not count.
  const std::string id = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{.........................";
  const std::string zkey = "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.A.B.C.D.E.F.G.H";
  std::string text = "[host]\nlog_level = \"info\" # [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ ....................\n";
  text += "[[keys]]\nid = '" + id + "'\n";
  text += "zkey = \"\"\"" + zkey + "\\\"\"\" quoted.\"\"\"\"\"\n";  // ends in "" + the closing """
  const std::string path = tmp.write("config.toml", text);
  const pacer::Config cfg = pacer::load_config(path);
  REQUIRE(cfg.keys.size() == 1);
  CHECK(cfg.keys[0].id == id);
  CHECK_THAT(cfg.keys[0].zkey.filename().string(), Contains("H\"\"\" quoted.\"\""));
}

TEST_CASE("hostile: a config that is not UTF-8 is refused before toml11 reads past its buffer", "[hostile]") {
  // fuzz_config found '\x97' (tests/fuzz/regressions/config/invalid_utf8_in_literal_string.toml).
  Scratch tmp;
  for (const std::string& text : {std::string("'\x97'"), std::string("[host]\nlog_level = \"\xc0\xaf\""),
                                  std::string("# \xed\xa0\x80 a surrogate\n"), std::string("a = '\xf4\x90\x80\x80'")}) {
    const std::string path = tmp.write("config.toml", text);
    CHECK_REFUSED(pacer::load_config(path), "config.toml:", "not UTF-8");
  }
  const std::string path = tmp.write("config.toml", std::string("# caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91\n[host]\n"));
  CHECK_NOTHROW(pacer::load_config(path));
}

TEST_CASE("hostile: a config read from /proc is read to its end, not to its zero st_size", "[hostile]") {
  // /proc/self/status is a regular file of st_size 0 with text in it: not an empty (default) config.
  CHECK_THROWS_AS(pacer::load_config("/proc/self/status"), pacer::InputError);
}

TEST_CASE("hostile: a config with thousands of unknown keys is refused quickly, naming the first", "[hostile]") {
  Scratch tmp;
  std::string text = "[host]\n";
  for (int i = 0; text.size() < (60u << 10); ++i) text += "unknown_" + std::to_string(i) + " = 1\n";
  const std::string path = tmp.write("config.toml", text);
  CHECK_REFUSED(pacer::load_config(path), path + ":2: unknown key 'unknown_0' in [host]");
  CHECK(refusal_seconds([&] { pacer::load_config(path); }) < kQuickSeconds);
}

TEST_CASE("hostile: a pool whose threads the system refuses joins the ones it started and says so", "[hostile]") {
  // Starts `limit` threads, then fails as pthread_create does at the process limit (EAGAIN).
  auto refusing_after = [](size_t limit) {
    return [limit, started = std::make_shared<size_t>(0)](std::function<void()> body) {
      if (*started >= limit)
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again), "pthread_create");
      ++*started;
      return std::thread(std::move(body));
    };
  };
  CHECK_REFUSED(pacer::ThreadPool(8, refusing_after(2)), "[host] threads: the system refused to start thread 4 of 8",
                "Resource temporarily unavailable", "ulimit -u");
  CHECK(refusal_seconds([&] { pacer::ThreadPool(8, refusing_after(2)); }) < kQuickSeconds);
  CHECK_REFUSED(pacer::ThreadPool(2, refusing_after(0)), "thread 2 of 2");
  pacer::ThreadPool pool(3);
  CHECK(pool.size() == 3);
}
