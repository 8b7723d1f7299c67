#pragma once
// Writers for the snarkjs files (docs/formats.md §2-5, §8): .r1cs, .wtns, .zkey and the
// verification key JSON. Used by `pacer gen-circuit`, `pacer setup` and `pacer prove`; files reach
// gigabytes, so everything streams through a large buffer into a hidden temporary file beside the
// output, renamed over it only when complete: a failed write never leaves a half file under the
// real name, and a failed command leaves no temporary file behind.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pacer/formats/r1cs.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/types.hpp"

namespace pacer {

// Buffered, all-or-nothing output. Errors: InputError when the file cannot be created or the
// path names something other than a regular file (a FIFO, a device, a folder: a rename would
// replace it), FailedError when writing fails midway (e.g. disk full); both name the path.
class FileWriter {
 public:
  explicit FileWriter(std::string path, size_t buffer_bytes = size_t(8) << 20);
  ~FileWriter();  // without commit(): the temporary file is removed
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  void write(std::span<const std::byte> bytes);
  void write(const void* data, size_t size) { write({static_cast<const std::byte*>(data), size}); }
  void u32(uint32_t v) { write(&v, sizeof v); }
  void u64(uint64_t v) { write(&v, sizeof v); }
  void zeros(size_t n);
  uint64_t position() const { return flushed_ + used_; }
  // Overwrites 8 bytes written earlier (section sizes known only at the section's end).
  void patch_u64(uint64_t offset, uint64_t value);
  // Flushes and closes; the content stays under temp_path() until commit(). For outputs that
  // must appear together (`pacer setup`'s key and verification key) or be read back first.
  void close();
  // close(), then renames the temporary file over path.
  void commit();
  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return tmp_path_; }

 private:
  friend void commit_together(std::initializer_list<FileWriter*> files);
  void flush();
  void write_all(const std::byte* data, size_t size);
  [[noreturn]] void fail(const std::string& what) const;
  void placed();  // the temporary file is now the output: nothing to remove
  std::string path_, landing_, tmp_path_;  // landing_: path, or a symlink's target
  int temp_slot_ = -1;                     // in the list remove_temporary_files_now() reads
  int fd_ = -1;
  std::unique_ptr<std::byte[]> buffer_;  // not zeroed: small files touch only the pages they use
  size_t capacity_, used_ = 0;
  uint64_t flushed_ = 0;
  bool committed_ = false;
};

// Outputs that belong together (proof.json and public.json; a zkey and its verification key),
// each closed already, put in place as one: all of them, or none. An output that existed is kept
// aside (a hard link) until every rename has worked, and put back if one fails; an output that did
// not exist is removed again. Throws as commit() does.
void commit_together(std::initializer_list<FileWriter*> files);

// Whether a FileWriter for `path` could create its temporary file: one is made beside the output (or
// beside a symlink's target) and removed at once. "" when it could, else the reason (strerror).
// Mode bits and access() do not tell for root, /proc or a read-only mount; trying does.
std::string cannot_create_beside(const std::string& path);

// Removes the temporary file of every FileWriter open in this process, and nothing else: for a
// signal handler (it only calls unlink), so that SIGINT during setup or gen-circuit leaves no
// hidden file of gigabytes beside the output.
void remove_temporary_files_now() noexcept;

// The iden3 container (§2): magic, version, section count, then (id, u64 size, payload) records.
// A section's size is patched in when it ends, so payloads of any length stream through.
class BinFileWriter : public FileWriter {
 public:
  BinFileWriter(std::string path, std::string_view magic, uint32_t version, uint32_t n_sections);
  void begin_section(uint32_t id);
  // Returns the payload size; with expected_size given, a different size is a logic error.
  uint64_t end_section(uint64_t expected_size = ~uint64_t(0));
  void close();   // every announced section written
  void commit();  // the same, then into place

 private:
  uint32_t n_sections_, written_ = 0;
  uint32_t open_id_ = 0;
  uint64_t size_at_ = 0;  // offset of the open section's u64 size; 0 = none open
};

// --- .r1cs (§3) -----------------------------------------------------------------------------

struct R1csHeader {
  CurveId curve = CurveId::bn254;
  uint32_t n_wires = 0, n_pub_out = 0, n_pub_in = 0, n_prv_in = 0;
  uint64_t n_labels = 0;  // written as n_wires when 0
  uint32_t n_constraints = 0;
};

// Receives the linear combinations of one constraint: exactly three lc() calls, A then B then C.
// Wires must be below nWires and coefficients (standard form) below r: a logic error otherwise.
class R1csLcWriter {
 public:
  void lc(std::span<const uint32_t> wires, std::span<const Fr256> coeffs);
  void lc(std::span<const R1csTerm> terms);

 private:
  friend void write_r1cs(const std::string&, const R1csHeader&,
                         const std::function<void(uint32_t, R1csLcWriter&)>&);
  R1csLcWriter(BinFileWriter& out, const R1csHeader& header);
  void term(uint32_t wire, const Fr256& coeff);
  BinFileWriter& out_;
  const R1csHeader& header_;
  const Fr256& r_;
  uint32_t lcs_ = 0;
};

// Sections in circom's order 2, 1, 3; emit(i, out) writes constraint i for i in [0, n_constraints);
// section 3 maps every wire to the label of the same number.
void write_r1cs(const std::string& path, const R1csHeader& header,
                const std::function<void(uint32_t constraint, R1csLcWriter& out)>& emit);
void write_r1cs(const std::string& path, const R1cs& r1cs);  // r1cs.constraints must be loaded

// --- .wtns (§4), version 2; values in standard form --------------------------------------------
void write_wtns(const std::string& path, CurveId curve, std::span<const Fr256> values);

// --- .zkey (§5), groth16, sections 1..10 in order --------------------------------------------

// Streams a Groth16 key. The constructor writes sections 1 and 2 from `header` (curve, n_vars,
// n_public, domain_size and the six points in file encoding; its other fields are unused).
// Then sections 3..9 follow in order: begin(id), append() payload bytes, end(), which checks the
// size the header implies; section 4 goes through begin_coefficients()/coefficient(). close()
// writes section 10 (an all-zero csHash and no contributions) and closes the temporary file,
// commit() renames it into place; finish() does both.
class ZkeyWriter {
 public:
  ZkeyWriter(std::string path, const ProvingKey& header);
  void begin(uint32_t section);
  void append(std::span<const std::byte> bytes) { out_.write(bytes); }
  void end();
  void begin_coefficients(uint32_t n_coeffs);
  // stored = v·R² mod r, the §5.3 encoding of the true coefficient v.
  void coefficient(uint32_t matrix, uint32_t constraint, uint32_t signal, const Fr256& stored);
  // Whole records as the file holds them ({u32 matrix, u32 constraint, u32 signal, 32-byte value}
  // each), for writers that build them in parallel; checked like coefficient().
  void append_coefficient_records(std::span<const std::byte> records);
  void close();
  void commit();
  void finish();
  // The file underneath, closed by close(): for commit_together() with another output.
  FileWriter& file() { return out_; }
  const std::string& path() const { return out_.path(); }
  const std::string& temp_path() const { return out_.temp_path(); }

 private:
  uint64_t expected_size(uint32_t section) const;
  BinFileWriter out_;
  uint32_t n8q_, n_vars_, n_public_, domain_size_;
  uint32_t next_ = 3, open_ = 0;
  uint32_t n_coeffs_ = 0, coeffs_written_ = 0;
};

// Writes a whole key that is already in memory (e.g. as read_zkey mapped it).
void write_zkey(const std::string& path, const ProvingKey& key);

// `snarkjs zkey export verificationkey` (§8) from a key: decimal strings, affine, Z = "1" /
// ["1","0"], and vk_alphabeta_12 = e(alpha1, beta2) (pairing.hpp), which Solidity verifiers read;
// the same document snarkjs exports.
void write_vkey_json(const std::string& path, const ProvingKey& key);
// The same text, for writers that place it themselves.
std::string vkey_json(const ProvingKey& key);

}  // namespace pacer
