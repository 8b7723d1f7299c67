// Key-check records (check_records.hpp).
#include "check_records.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "pacer/files.hpp"
#include "pacer/os_random.hpp"
#include "pacer/printable.hpp"

namespace pacer {

namespace fs = std::filesystem;

namespace {

constexpr size_t kSecretBytes = 32;
constexpr size_t kMaxRecordBytes = 1024;
constexpr const char* kSecretName = "secret";

using Secret = std::array<unsigned char, kSecretBytes>;

// A file opened without following a symlink and without blocking (a FIFO planted there), if it is
// a regular file owned by this user that nobody else may read or write; else -1.
int open_private_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Up to `limit` bytes of a private file (open_private_file), or nothing.
std::optional<std::string> read_private_file(const fs::path& path, size_t limit) {
  const Descriptor fd(open_private_file(path));
  if (fd.get() < 0) return std::nullopt;
  std::string text(limit + 1, '\0');
  size_t used = 0;
  while (used < text.size()) {
    const ssize_t got = ::read(fd.get(), text.data() + used, text.size() - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::nullopt;
    if (got == 0) break;
    used += size_t(got);
  }
  if (used > limit) return std::nullopt;
  text.resize(used);
  return text;
}

std::optional<Secret> read_secret(const fs::path& dir) {
  const auto text = read_private_file(dir / kSecretName, kSecretBytes);
  if (!text || text->size() != kSecretBytes) return std::nullopt;
  Secret secret;
  std::memcpy(secret.data(), text->data(), kSecretBytes);
  return secret;
}

// Writes `bytes` to a fresh private file in `dir` and returns its path (empty on failure, errno
// kept). The caller links or renames it into place.
fs::path write_private_temporary(const fs::path& dir, const void* bytes, size_t size) {
  const fs::path tmp = dir / (".tmp-" + os_random_hex(8));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return {};
  const auto* p = static_cast<const char*>(bytes);
  size_t done = 0;
  bool ok = true;
  while (ok && done < size) {
    const ssize_t put = ::write(fd, p + done, size - done);
    if (put < 0 && errno == EINTR) continue;
    ok = put > 0;
    if (ok) done += size_t(put);
  }
  ok = ok && ::fsync(fd) == 0;  // a record renamed into place is never an empty file after a crash
  const int saved = errno;
  ::close(fd);
  if (ok) return tmp;
  ::unlink(tmp.c_str());
  errno = saved;
  return {};
}

// The secret, made when there is none. Two processes that make one at once: link() lets one win,
// and both use the winner's.
std::optional<Secret> secret_for_writing(const fs::path& dir, std::string& why) {
  if (auto secret = read_secret(dir)) return secret;
  const fs::path path = dir / kSecretName;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    why = fmt::format("{} is not a private file of this user (a regular file, mode 0600, {} bytes); records are "
                      "ignored until it is removed",
                      path.string(), kSecretBytes);
    return std::nullopt;
  }
  Secret fresh;
  os_random_bytes(std::as_writable_bytes(std::span(fresh)));
  const fs::path tmp = write_private_temporary(dir, fresh.data(), fresh.size());
  if (tmp.empty()) {
    why = fmt::format("cannot write in {}: {}", dir.string(), std::strerror(errno));
    return std::nullopt;
  }
  const bool linked = ::link(tmp.c_str(), path.c_str()) == 0;
  const int saved = errno;
  ::unlink(tmp.c_str());
  if (!linked && saved != EEXIST) {
    why = fmt::format("cannot make {}: {}", path.string(), std::strerror(saved));
    return std::nullopt;
  }
  if (auto secret = read_secret(dir)) return secret;
  why = fmt::format("{} is not a private file of this user", path.string());
  return std::nullopt;
}

// The record's whole text for this digest under this secret: what a valid record file holds, byte
// for byte.
std::string record_text(const std::string& digest, const Secret& secret) {
  const std::string body = fmt::format(
      "pacer key-check record 1\n"
      "key content digest {}\n"
      "passed every point's subgroup check\n",
      digest);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_size = 0;
  HMAC(EVP_sha256(), secret.data(), int(secret.size()), reinterpret_cast<const unsigned char*>(body.data()),
       body.size(), mac, &mac_size);
  return body + "hmac-sha256 " + hex_bytes(std::as_bytes(std::span(mac, mac_size))) + "\n";
}

bool is_digest(const std::string& digest) {
  return digest.size() == 64 && digest.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

KeyCheckRecords::KeyCheckRecords(fs::path dir) : dir_(std::move(dir)) {}

fs::path KeyCheckRecords::record_path(const std::string& digest) const { return dir_ / (digest + ".record"); }

bool KeyCheckRecords::passed(const std::string& digest) const {
  if (!is_digest(digest)) return false;
  const auto secret = read_secret(dir_);
  if (!secret) return false;
  const auto text = read_private_file(record_path(digest), kMaxRecordBytes);
  if (!text) return false;
  const std::string expected = record_text(digest, *secret);
  return text->size() == expected.size() && CRYPTO_memcmp(text->data(), expected.data(), expected.size()) == 0;
}

bool KeyCheckRecords::remember(const std::string& digest, std::string* why) const {
  std::string reason;
  const auto fail = [&](std::string r) {
    if (why) *why = std::move(r);
    return false;
  };
  if (!is_digest(digest)) return fail("not a content digest: " + digest);
  if (const int e = make_private_dirs(dir_)) return fail(fmt::format("cannot make {}: {}", dir_.string(), std::strerror(e)));
  const auto secret = secret_for_writing(dir_, reason);
  if (!secret) return fail(reason);
  const std::string text = record_text(digest, *secret);
  const fs::path tmp = write_private_temporary(dir_, text.data(), text.size());
  if (tmp.empty()) return fail(fmt::format("cannot write in {}: {}", dir_.string(), std::strerror(errno)));
  const fs::path path = record_path(digest);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return fail(fmt::format("cannot write {}: {}", path.string(), std::strerror(e)));
  }
  return true;
}

}  // namespace pacer
