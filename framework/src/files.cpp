// Safe inputs and outputs (pacer/files.hpp).
#include "pacer/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <climits>
#include <optional>

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "pacer/formats/writers.hpp"

namespace pacer {

namespace fs = std::filesystem;

std::string file_kind_name(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

namespace {

FileIdentity identity_of(const struct stat& st) {
  return {uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(st.st_size),
          int64_t(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec};
}

}  // namespace

Descriptor::~Descriptor() {
  if (fd_ >= 0) ::close(fd_);
}

int make_private_dirs(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return 0;
  if (dir.has_parent_path() && dir.parent_path() != dir)
    if (const int e = make_private_dirs(dir.parent_path())) return e;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return errno;
  return std::filesystem::is_directory(dir, ec) ? 0 : ENOTDIR;
}

std::optional<FileIdentity> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return identity_of(st);
}

std::optional<FileIdentity> file_identity(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::nullopt;
  return identity_of(st);
}

RegularFile::RegularFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw InputError(fmt::format("{}: is {}, not a regular file (give the path of a file)", path,
                                 file_kind_name(st.st_mode)));
  }
  // Reads of a regular file never block anyway; clear the flag so that nothing below depends on it.
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  size_ = static_cast<uint64_t>(st.st_size);
  identity_ = identity_of(st);
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string RegularFile::read_all(uint64_t max_bytes, std::string_view what) const {
  const auto too_big = [&](uint64_t bytes) {
    return InputError(fmt::format("{}: {}{} bytes, more than the {} a {} may have", path_, bytes > size_ ? "over " : "",
                                  bytes, max_bytes, what));
  };
  if (size_ > max_bytes) throw too_big(size_);
  // Up to EOF, not up to st_size: files of /proc and /sys say 0 bytes and still have content.
  std::string out;
  out.reserve(size_ + 1);  // one allocation for a regular file (no regrowth and refaulting)
  char chunk[16384];
  for (;;) {
    const ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(fmt::format("{}: cannot read: {}", path_, std::strerror(errno)));
    if (n == 0) return out;
    out.append(chunk, static_cast<size_t>(n));
    if (out.size() > max_bytes) throw too_big(out.size());
  }
}

namespace {

struct Identity {
  dev_t dev;
  ino_t ino;
  bool operator==(const Identity&) const = default;
};

// Device and inode of what the path names (symlinks followed), or nullopt when nothing is there.
std::optional<Identity> identity(const std::string& path, mode_t* mode = nullptr) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  if (mode) *mode = st.st_mode;
  return Identity{st.st_dev, st.st_ino};
}

// Where an output will land, for comparing outputs that do not exist yet.
fs::path landing_path(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::path(path).lexically_normal() : p;
}

}  // namespace

void check_outputs(const std::vector<NamedFile>& inputs, const std::vector<NamedFile>& outputs) {
  std::vector<std::optional<Identity>> input_ids;
  for (const auto& in : inputs) input_ids.push_back(identity(in.path));

  std::vector<std::optional<Identity>> output_ids;
  for (const auto& out : outputs) {
    if (out.path.empty()) throw InputError(fmt::format("{}: an empty path (name the file to write)", out.role));
    const std::string name = fs::path(out.path).filename().string();
    if (name.empty() || name == "." || name == "..")
      throw InputError(fmt::format("{}: {} names a folder, not a file (name the file to write)", out.role, out.path));
    if (name.size() > NAME_MAX)
      throw InputError(fmt::format("{}: a file name of {} bytes (at most {})", out.role, name.size(), NAME_MAX));
    if (out.path.size() >= PATH_MAX)
      throw InputError(fmt::format("{}: a path of {} bytes (at most {})", out.role, out.path.size(), PATH_MAX - 1));
    mode_t mode = 0;
    const auto id = identity(out.path, &mode);
    if (id && !S_ISREG(mode))
      throw InputError(fmt::format("{}: is {}, not a regular file (give {} the path of a new or regular file)",
                                   out.path, file_kind_name(mode), out.role));
    if (!id) {
      const fs::path dir = fs::path(out.path).parent_path();
      std::error_code ec;
      if (!dir.empty() && !fs::is_directory(dir, ec))
        throw InputError(fmt::format("{}: folder {} does not exist (create it first)", out.path, dir.string()));
    }
    // Before any work: a folder that cannot take the output is found now, not after hours of it.
    if (const std::string why = cannot_create_beside(out.path); !why.empty()) {
      const fs::path folder = fs::path(out.path).parent_path();
      throw InputError(fmt::format("{}: cannot write in folder {}: {} (give {} a path in a folder you can write in)",
                                   out.path, folder.empty() ? "." : folder.string(), why, out.role));
    }
    for (size_t i = 0; i < inputs.size(); ++i)
      if (id && input_ids[i] == id)
        throw InputError(fmt::format("{}: is the same file as the input {} {} (Pacer never overwrites an input; "
                                     "give {} another path)",
                                     out.path, inputs[i].role, inputs[i].path, out.role));
    for (size_t j = 0; j < output_ids.size(); ++j) {
      const bool same = id ? output_ids[j] == id : landing_path(out.path) == landing_path(outputs[j].path);
      if (same)
        throw InputError(fmt::format("{}: named by both {} and {} (give each output its own file)", out.path,
                                     outputs[j].role, out.role));
    }
    output_ids.push_back(id);
  }
}

}  // namespace pacer
