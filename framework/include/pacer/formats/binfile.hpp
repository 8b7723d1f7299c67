#pragma once
// The iden3 binary container shared by .r1cs, .wtns and .zkey (docs/formats.md §2):
// magic, version, then (id, size, payload) records in any order. Files are memory-mapped.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "pacer/files.hpp"
#include "pacer/types.hpp"

namespace pacer {

static_assert(std::endian::native == std::endian::little, "the file formats are little-endian");

// Little-endian loads from file bytes. memcpy, because a mapped file gives no alignment
// guarantee; the caller has checked that offset + width lies inside `bytes`. In their own
// namespace so that they never clash with helpers of the same name elsewhere.
namespace le {
inline uint32_t u32(std::span<const std::byte> bytes, size_t offset) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}
inline uint64_t u64(std::span<const std::byte> bytes, size_t offset) {
  uint64_t v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}
// 32 bytes -> 4 little-endian limbs.
inline Fr256 fr256(std::span<const std::byte> bytes, size_t offset) {
  Fr256 v;
  std::memcpy(v.data(), bytes.data() + offset, sizeof v);
  return v;
}
}  // namespace le

// The first four bytes as text, unprintable ones escaped as \xNN, for error messages.
std::string describe_magic(std::span<const std::byte> bytes);

// A read-only memory map of a whole file. Throws InputError naming the path on failure.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  // Bytes that arrived another way (a request body): read by the same parsers as a file, with
  // `name` in their messages. Throws InputError when empty, as for an empty file.
  MappedFile(std::string name, std::string bytes);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::span<const std::byte> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }
  // Copies `part` (a range of bytes()) to `out`. From a file it reads (pread) instead of touching
  // the mapping, so a large section streams at file-read speed without a page fault a page.
  void copy_out(std::span<const std::byte> part, void* out) const;
  // The file as it was when mapped (all zero for bytes that arrived another way): compare with
  // file_identity(path()) to learn whether anything rewrote it since.
  const FileIdentity& identity() const { return identity_; }
  // Gives back the memory of the pages that lie wholly inside `part` (a span of bytes()) once a
  // backend has copied what it needs from them: a later read faults them in again from the page
  // cache, so the bytes stay valid, but a one-shot run's peak RSS no longer holds the file beside
  // its decoded copy. Nothing for bytes that arrived another way (they are the only copy).
  void drop_pages(std::span<const std::byte> part) const;

 private:
  std::string path_;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
  std::string owned_;  // the bytes of the in-memory form; empty for a mapped file
  bool mapped_ = false;
  int fd_ = -1;  // the mapped file, kept open for copy_out
  FileIdentity identity_;
};

class BinFile {
 public:
  // Checks magic (4 ASCII chars), version <= max_version and that every section lies inside the
  // file; a duplicated section id is an error.
  BinFile(const std::string& path, std::string_view magic, uint32_t max_version);
  // Same, over a file that is already mapped (e.g. after sniffing its magic).
  BinFile(std::shared_ptr<const MappedFile> file, std::string_view magic, uint32_t max_version);
  uint32_t version() const { return version_; }
  bool has(uint32_t id) const { return sections_.count(id) != 0; }
  // Throws InputError "<path>: missing section <id> (<what>)" when absent.
  std::span<const std::byte> section(uint32_t id, std::string_view what) const;
  const std::string& path() const { return file_->path(); }
  std::shared_ptr<const MappedFile> file() const { return file_; }
  // id -> (offset, size), for `pacer inspect`.
  const std::map<uint32_t, std::pair<uint64_t, uint64_t>>& sections() const { return sections_; }

 private:
  std::shared_ptr<const MappedFile> file_;
  uint32_t version_ = 0;
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> sections_;
};

// Reads one section front to back. Reading past its end, or leaving bytes unread at
// expect_end(), is an InputError naming the file, the section and the offsets.
class SectionReader {
 public:
  SectionReader(const BinFile& file, uint32_t id, std::string_view what);
  uint32_t u32();
  uint64_t u64();
  std::span<const std::byte> bytes(uint64_t n);
  uint64_t position() const { return pos_; }
  uint64_t remaining() const { return data_.size() - pos_; }
  void expect_end() const;

 private:
  void need(uint64_t n) const;
  const BinFile& file_;
  uint32_t id_;
  std::string what_;
  std::span<const std::byte> data_;
  uint64_t pos_ = 0;
};

}  // namespace pacer
