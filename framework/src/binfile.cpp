// Memory-mapped reading of the iden3 binary container (docs/formats.md §2).
#include "pacer/formats/binfile.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "pacer/error.hpp"
#include "pacer/files.hpp"

namespace pacer {

std::string describe_magic(std::span<const std::byte> bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size() && i < 4; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

MappedFile::MappedFile(const std::string& path) : path_(path) {
  const RegularFile file(path);  // refuses FIFOs, devices and folders without blocking
  if (file.size() == 0) throw InputError(path + ": empty file");
  size_ = static_cast<size_t>(file.size());
  void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, file.fd(), 0);
  if (mapped == MAP_FAILED) throw InputError(path + ": cannot map: " + std::strerror(errno));
  data_ = static_cast<const std::byte*>(mapped);
  mapped_ = true;
  fd_ = ::fcntl(file.fd(), F_DUPFD_CLOEXEC, 0);  // -1: copy_out falls back to the mapping
  identity_ = file.identity();
}

MappedFile::MappedFile(std::string name, std::string bytes) : path_(std::move(name)), owned_(std::move(bytes)) {
  if (owned_.empty()) throw InputError(path_ + ": empty");
  data_ = reinterpret_cast<const std::byte*>(owned_.data());
  size_ = owned_.size();
}

void MappedFile::drop_pages(std::span<const std::byte> part) const {
  if (!mapped_ || part.empty() || part.data() < data_ || part.data() + part.size() > data_ + size_) return;
  const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (uintptr_t(part.data()) + page - 1) & ~(page - 1);
  const uintptr_t end = (uintptr_t(part.data()) + part.size()) & ~(page - 1);
  // A private read-only file mapping: MADV_DONTNEED only unmaps the pages; the file backs them.
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(const_cast<std::byte*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

void MappedFile::copy_out(std::span<const std::byte> part, void* out) const {
  if (part.data() < data_ || part.data() + part.size() > data_ + size_)
    throw std::logic_error("MappedFile::copy_out: the range is not part of " + path_);
  auto* dest = static_cast<std::byte*>(out);
  size_t done = 0;
  if (fd_ >= 0) {
    const auto offset = static_cast<off_t>(part.data() - data_);
    while (done < part.size()) {
      const ssize_t n = ::pread(fd_, dest + done, part.size() - done, offset + static_cast<off_t>(done));
      if (n > 0) done += size_t(n);
      else if (n == 0 || errno != EINTR) break;  // the file shrank, or a read error: the mapping says
    }
  }
  if (done < part.size()) std::memcpy(dest + done, part.data() + done, part.size() - done);
}

BinFile::BinFile(const std::string& path, std::string_view magic, uint32_t max_version)
    : BinFile(std::make_shared<const MappedFile>(path), magic, max_version) {}

BinFile::BinFile(std::shared_ptr<const MappedFile> file, std::string_view magic, uint32_t max_version)
    : file_(std::move(file)) {
  const auto bytes = file_->bytes();
  const std::string& p = file_->path();
  const std::string kind(magic);
  const uint64_t file_size = bytes.size();
  if (bytes.size() < 4 || std::memcmp(bytes.data(), magic.data(), 4) != 0)
    throw InputError(p + ": not a " + kind + " file (magic '" + describe_magic(bytes) + "')");
  if (bytes.size() < 12)
    throw InputError(p + ": truncated: the " + kind + " header needs 12 bytes but the file has " +
                     std::to_string(file_size));
  version_ = le::u32(bytes, 4);
  if (version_ > max_version)
    throw InputError(p + ": " + kind + " version " + std::to_string(version_) +
                     " is not supported (Pacer reads versions up to " + std::to_string(max_version) + ")");
  const uint32_t n_sections = le::u32(bytes, 8);

  uint64_t offset = 12;
  for (uint32_t i = 0; i < n_sections; ++i) {
    if (file_size - offset < 12)
      throw InputError(p + ": truncated: section header " + std::to_string(i) + " needs 12 bytes at offset " +
                       std::to_string(offset) + " but the file has " + std::to_string(file_size));
    const uint32_t id = le::u32(bytes, offset);
    const uint64_t size = le::u64(bytes, offset + 4);
    const uint64_t payload = offset + 12;
    if (size > file_size - payload)
      throw InputError(p + ": truncated: section " + std::to_string(id) + " needs " + std::to_string(size) +
                       " bytes at offset " + std::to_string(payload) + " but the file has " +
                       std::to_string(file_size));
    const auto [it, inserted] = sections_.emplace(id, std::make_pair(payload, size));
    if (!inserted)
      throw InputError(p + ": section " + std::to_string(id) + " appears twice (at offsets " +
                       std::to_string(it->second.first) + " and " + std::to_string(payload) + ")");
    offset = payload + size;
  }
}

std::span<const std::byte> BinFile::section(uint32_t id, std::string_view what) const {
  const auto it = sections_.find(id);
  if (it == sections_.end())
    throw InputError(path() + ": missing section " + std::to_string(id) + " (" + std::string(what) + ")");
  return file_->bytes().subspan(it->second.first, it->second.second);
}

SectionReader::SectionReader(const BinFile& file, uint32_t id, std::string_view what)
    : file_(file), id_(id), what_(what), data_(file.section(id, what)) {}

void SectionReader::need(uint64_t n) const {
  if (n > remaining())
    throw InputError(file_.path() + ": section " + std::to_string(id_) + " (" + what_ + ") is too short: needs " +
                     std::to_string(n) + " bytes at offset " + std::to_string(pos_) + " but has " +
                     std::to_string(data_.size()));
}

uint32_t SectionReader::u32() {
  need(4);
  const uint32_t v = le::u32(data_, pos_);
  pos_ += 4;
  return v;
}

uint64_t SectionReader::u64() {
  need(8);
  const uint64_t v = le::u64(data_, pos_);
  pos_ += 8;
  return v;
}

std::span<const std::byte> SectionReader::bytes(uint64_t n) {
  need(n);
  const auto out = data_.subspan(pos_, n);
  pos_ += n;
  return out;
}

void SectionReader::expect_end() const {
  if (pos_ != data_.size())
    throw InputError(file_.path() + ": section " + std::to_string(id_) + " (" + what_ + ") has " +
                     std::to_string(data_.size()) + " bytes but its content is " + std::to_string(pos_));
}

}  // namespace pacer
