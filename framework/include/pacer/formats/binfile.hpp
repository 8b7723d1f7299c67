#pragma once
// The iden3 binary container shared by .r1cs, .wtns and .zkey (SNARKJS_FORMATS.md §2):
// magic, version, then (id, size, payload) records in any order. Files are memory-mapped.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>

namespace pacer {

// A read-only memory map of a whole file. Throws InputError naming the path on failure.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::span<const std::byte> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

class BinFile {
 public:
  // Checks magic (4 ASCII chars), version <= max_version and that every section lies inside the
  // file; a duplicated section id is an error.
  BinFile(const std::string& path, std::string_view magic, uint32_t max_version);
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

}  // namespace pacer
