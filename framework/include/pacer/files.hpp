#pragma once
// Opening inputs and placing outputs so that no path given on a command line or in a config can
// hang Pacer (a FIFO), be read as what it is not (a device, a folder) or be destroyed (an output
// that is one of the inputs, or a device node that a write-then-rename would replace).
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pacer {

// Which file a path named, and whether its content may have changed since: device, inode, size and
// status-change time (ctime, which every write, truncation, rename or utimes moves and no user can
// set back). Not a name for the content: that is a digest of the bytes.
struct FileIdentity {
  uint64_t device = 0, inode = 0, size = 0;
  int64_t ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};
// The identity of what `path` names now; nothing when it cannot be stat'ed.
std::optional<FileIdentity> file_identity(const std::string& path);
// The identity of the file an open descriptor reads; nothing when it cannot be fstat'ed.
std::optional<FileIdentity> file_identity(int fd);

// A descriptor closed on every path out (-1: none).
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor();
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Makes `dir` and its missing parents, private to the user (0700); errno on failure, else 0.
int make_private_dirs(const std::filesystem::path& dir);

// A read-only descriptor of a regular file. The open cannot block (O_NONBLOCK: a FIFO with no
// writer would otherwise wait forever), and anything but a regular file is refused with
// InputError "<path>: is a FIFO, not a regular file (...)".
class RegularFile {
 public:
  explicit RegularFile(const std::string& path);
  ~RegularFile();
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  const FileIdentity& identity() const { return identity_; }  // when opened
  const std::string& path() const { return path_; }
  // The whole content. A file above max_bytes is refused before anything is read: InputError
  // "<path>: <n> bytes, more than the <max_bytes> a <what> may have".
  std::string read_all(uint64_t max_bytes, std::string_view what) const;

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  FileIdentity identity_;
};

// "a FIFO", "a character device", "a folder", ...: what a stat's mode says a path is.
std::string file_kind_name(mode_t mode);

// A file named on the command line or in a config, as messages name it: {"--zkey", "k.zkey"}.
struct NamedFile {
  std::string role;
  std::string path;
};

// Checked before anything is written: every output is absent or a regular file, is none of the
// inputs (same device and inode, so hard links and symlinks count), and no two outputs are the
// same file. Throws InputError naming the output and the file it collides with.
void check_outputs(const std::vector<NamedFile>& inputs, const std::vector<NamedFile>& outputs);

}  // namespace pacer
