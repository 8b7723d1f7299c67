// FileWriter and BinFileWriter (pacer/formats/writers.hpp): every output Pacer writes goes to a
// hidden temporary file beside it and is renamed into place when complete; outputs that belong
// together are placed together; a signal removes the temporary files (remove_temporary_files_now).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "pacer/files.hpp"
#include "pacer/formats/writers.hpp"

namespace pacer {

// --- FileWriter -----------------------------------------------------------------------------

namespace {

// An existing output must be a regular file: a rename would replace a device node or a FIFO with
// our file, and a folder cannot be replaced at all. A symlink to a regular file is followed, so
// the link stays and its target gets the new content, as a plain write would do.
std::string landing_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return path;  // absent (or unreachable: the open will say)
  if (!S_ISREG(st.st_mode))
    throw InputError(path + ": is " + file_kind_name(st.st_mode) +
                     ", not a regular file (name a new or regular file for the output)");
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    std::error_code ec;
    const auto target = std::filesystem::canonical(path, ec);
    if (!ec) return target.string();
  }
  return path;
}

// A hidden name beside `landing` that is unique to this process: ".<name>.<pid>.<n><suffix>",
// with <name> cut so that the whole stays within NAME_MAX (an output's own name may use it all).
std::string hidden_name_beside(const std::filesystem::path& landing, const char* suffix) {
  static std::atomic<unsigned> counter{0};
  const std::string tail = fmt::format(".{}.{}{}", ::getpid(), counter++, suffix);
  std::string name = landing.filename().string();
  if (1 + name.size() + tail.size() > NAME_MAX) name.resize(NAME_MAX - 1 - tail.size());
  return (landing.parent_path() / ("." + name + tail)).string();
}

// The temporary files open now, for remove_temporary_files_now() in a signal handler: fixed slots
// of fixed size, each written whole before it is marked ready (lock-free atomics only).
struct TempSlot {
  std::atomic<int> state{0};  // 0 free, 1 being written, 2 ready
  char path[PATH_MAX];
};
TempSlot g_temp_slots[64];

int claim_temp_slot(const std::string& path) noexcept {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < static_cast<int>(std::size(g_temp_slots)); ++i) {
    int expected = 0;
    if (!g_temp_slots[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_temp_slots[i].path, path.c_str(), path.size() + 1);
    g_temp_slots[i].state.store(2);
    return i;
  }
  return -1;  // more temporary files open than slots: this one is not removed on a signal
}

void release_temp_slot(int& slot) noexcept {
  if (slot >= 0) g_temp_slots[slot].state.store(0);
  slot = -1;
}

}  // namespace

std::string cannot_create_beside(const std::string& path) {
  const std::string probe = hidden_name_beside(landing_path(path), ".tmp");
  int slot = claim_temp_slot(probe);  // a signal between the open and the unlink still removes it
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  const int err = errno;
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
  }
  release_temp_slot(slot);
  return fd >= 0 ? "" : std::strerror(err);
}

void remove_temporary_files_now() noexcept {
  for (auto& slot : g_temp_slots)
    if (slot.state.load() == 2) ::unlink(slot.path);
}

FileWriter::FileWriter(std::string path, size_t buffer_bytes)
    : path_(std::move(path)), buffer_(new std::byte[buffer_bytes]), capacity_(buffer_bytes) {
  landing_ = landing_path(path_);
  // A fresh hidden name beside the output (same file system: the rename is atomic); O_EXCL, so it
  // can never be a file that already exists, an input included. Listed before it exists, so that
  // a signal at any moment finds it.
  const std::filesystem::path landing(landing_);
  for (int attempt = 0; fd_ < 0; ++attempt) {
    tmp_path_ = hidden_name_beside(landing, ".tmp");
    release_temp_slot(temp_slot_);
    temp_slot_ = claim_temp_slot(tmp_path_);
    fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0 && (errno != EEXIST || attempt > 100)) {
      const int err = errno;
      release_temp_slot(temp_slot_);
      throw InputError(path_ + ": cannot create " + tmp_path_ + ": " + std::strerror(err) +
                       " (is the folder there and writable?)");
    }
  }
}

FileWriter::~FileWriter() {
  if (committed_) return;
  if (fd_ >= 0) ::close(fd_);
  ::unlink(tmp_path_.c_str());
  release_temp_slot(temp_slot_);
}

void FileWriter::placed() {
  committed_ = true;
  release_temp_slot(temp_slot_);
}

void FileWriter::fail(const std::string& what) const {
  throw FailedError(path_ + ": " + what + " (writing " + tmp_path_ + "): " + std::strerror(errno));
}

void FileWriter::write_all(const std::byte* data, size_t size) {
  if (fd_ < 0) throw std::logic_error(path_ + ": written after close()");
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write");
    }
    data += n;
    size -= size_t(n);
    flushed_ += uint64_t(n);
  }
}

void FileWriter::flush() {
  write_all(buffer_.get(), used_);
  used_ = 0;
}

void FileWriter::write(std::span<const std::byte> bytes) {
  if (used_ + bytes.size() > capacity_) {
    flush();
    if (bytes.size() >= capacity_) {  // large block: straight through, no copy
      write_all(bytes.data(), bytes.size());
      return;
    }
  }
  std::memcpy(buffer_.get() + used_, bytes.data(), bytes.size());
  used_ += bytes.size();
}

void FileWriter::zeros(size_t n) {
  static const std::byte kZeros[256] = {};
  while (n > 0) {
    const size_t k = std::min(n, sizeof kZeros);
    write(kZeros, k);
    n -= k;
  }
}

void FileWriter::patch_u64(uint64_t offset, uint64_t value) {
  if (offset >= flushed_) {
    std::memcpy(buffer_.get() + (offset - flushed_), &value, sizeof value);
    return;
  }
  flush();  // a patch straddling the flushed part: write the buffer, then patch on disk
  if (::pwrite(fd_, &value, sizeof value, off_t(offset)) != ssize_t(sizeof value)) fail("cannot write");
}

void FileWriter::close() {
  if (fd_ < 0) return;
  flush();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot close");
}

void FileWriter::commit() {
  close();
  landing_path(path_);  // still not something a rename must not replace (it may have changed since)
  if (std::rename(tmp_path_.c_str(), landing_.c_str()) != 0) fail("cannot rename into place");
  placed();
}

void commit_together(std::initializer_list<FileWriter*> files) {
  for (FileWriter* f : files) {
    if (f->fd_ >= 0) throw std::logic_error(f->path_ + ": commit_together() before close()");
    landing_path(f->path_);  // each still a regular file or absent
  }
  struct Placed {
    FileWriter* file;
    std::string kept;  // a hard link to the file it replaced, or "" when there was none
  };
  std::vector<Placed> done;
  const auto undo = [&] {
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
      if (it->kept.empty()) ::unlink(it->file->landing_.c_str());
      else std::rename(it->kept.c_str(), it->file->landing_.c_str());
    }
  };
  for (FileWriter* f : files) {
    std::string kept;
    struct stat st {};
    if (::lstat(f->landing_.c_str(), &st) == 0) {
      kept = hidden_name_beside(f->landing_, ".old");
      if (::link(f->landing_.c_str(), kept.c_str()) != 0) kept.clear();  // no hard links here: no way back
    }
    if (std::rename(f->tmp_path_.c_str(), f->landing_.c_str()) != 0) {
      const int err = errno;
      if (!kept.empty()) ::unlink(kept.c_str());
      undo();
      errno = err;
      f->fail("cannot rename into place (the outputs written with it were taken back)");
    }
    f->placed();
    done.push_back({f, std::move(kept)});
  }
  for (const Placed& p : done)
    if (!p.kept.empty()) ::unlink(p.kept.c_str());
}

// --- BinFileWriter --------------------------------------------------------------------------

BinFileWriter::BinFileWriter(std::string path, std::string_view magic, uint32_t version, uint32_t n_sections)
    : FileWriter(std::move(path)), n_sections_(n_sections) {
  if (magic.size() != 4) throw std::logic_error("binfile magic must be 4 characters");
  write(magic.data(), 4);
  u32(version);
  u32(n_sections);
}

void BinFileWriter::begin_section(uint32_t id) {
  if (size_at_ != 0) throw std::logic_error("BinFileWriter: section " + std::to_string(open_id_) + " still open");
  u32(id);
  size_at_ = position();
  open_id_ = id;
  u64(0);
}

uint64_t BinFileWriter::end_section(uint64_t expected_size) {
  if (size_at_ == 0) throw std::logic_error("BinFileWriter: no open section");
  const uint64_t size = position() - size_at_ - 8;
  if (expected_size != ~uint64_t(0) && size != expected_size)
    throw std::logic_error(path() + ": section " + std::to_string(open_id_) + " has " + std::to_string(size) +
                           " bytes, expected " + std::to_string(expected_size));
  patch_u64(size_at_, size);
  size_at_ = 0;
  ++written_;
  return size;
}

void BinFileWriter::close() {
  if (size_at_ != 0 || written_ != n_sections_)
    throw std::logic_error(path() + ": " + std::to_string(written_) + " of " + std::to_string(n_sections_) +
                           " sections written");
  FileWriter::close();
}

void BinFileWriter::commit() {
  close();
  FileWriter::commit();
}

}  // namespace pacer
