// The cache of compiled witness generators (build_cache.hpp).
#include "build_cache.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <openssl/evp.h>
#include <spdlog/spdlog.h>

#include "pacer/error.hpp"
#include "pacer/files.hpp"
#include "pacer/os_random.hpp"
#include "pacer/printable.hpp"
#include "pacer/witness/generator.hpp"

namespace pacer::witness {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLibraryName = "generator.so";
constexpr std::string_view kBuildingMark = ".build-";

// Forces a file's or folder's content to the disk, so that a power loss cannot leave a renamed
// entry with a library of zeros in it.
void sync_path(const fs::path& p, bool directory) {
  const Descriptor fd(::open(p.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC));
  if (fd.get() >= 0) ::fsync(fd.get());
}

}  // namespace

struct KeyHasher::Impl {
  EVP_MD_CTX* ctx = nullptr;
};

KeyHasher::KeyHasher() : impl_(std::make_unique<Impl>()) {
  impl_->ctx = EVP_MD_CTX_new();
  if (!impl_->ctx || EVP_DigestInit_ex(impl_->ctx, EVP_sha256(), nullptr) != 1)
    throw FailedError("cannot start a SHA-256 digest (OpenSSL)");
}

KeyHasher::~KeyHasher() { EVP_MD_CTX_free(impl_->ctx); }

void KeyHasher::add(std::string_view part) {
  begin_part(part.size());
  append(part);
}

void KeyHasher::begin_part(uint64_t size) { EVP_DigestUpdate(impl_->ctx, &size, sizeof size); }

void KeyHasher::append(std::string_view piece) { EVP_DigestUpdate(impl_->ctx, piece.data(), piece.size()); }

std::string KeyHasher::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(impl_->ctx, digest, &length);
  return hex_bytes(std::as_bytes(std::span(digest, length)));
}

fs::path default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/') return fs::path(xdg) / "pacer";
  const char* home = std::getenv("HOME");
  if (!home || home[0] != '/') {
    const passwd* user = ::getpwuid(::getuid());
    home = user ? user->pw_dir : nullptr;
  }
  if (!home || home[0] != '/')
    throw InputError("no cache dir for witness generators: neither XDG_CACHE_HOME nor HOME is set; give one with "
                     "--cache-dir DIR or [witness] cache_dir in the config");
  return fs::path(home) / ".cache" / "pacer";
}

BuildCache::BuildCache(fs::path root, std::string how_to_change)
    : root_(std::move(root)), how_to_change_(std::move(how_to_change)) {}

void BuildCache::not_writable(const fs::path& what, int error) const {
  throw InputError(fmt::format("witness generator cache {}: cannot write {} ({}); choose another folder with {}",
                               root_.string(), what.string(), std::strerror(error), how_to_change_));
}

std::optional<fs::path> BuildCache::find(const std::string& source_key, const std::string& toolchain_key) const {
  const fs::path entry = root_ / "generators" / source_key / toolchain_key;
  std::error_code ec;
  if (fs::is_regular_file(entry / kLibraryName, ec)) return entry;
  return std::nullopt;
}

std::optional<fs::path> BuildCache::find_any(const std::string& source_key) const {
  std::optional<fs::path> newest;
  fs::file_time_type newest_time{};
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(root_ / "generators" / source_key, ec)) {
    const fs::path library = item.path() / kLibraryName;
    if (item.path().filename().string().find(kBuildingMark) != std::string::npos) continue;
    const auto time = fs::last_write_time(library, ec);
    if (ec || !fs::is_regular_file(library, ec)) continue;
    if (!newest || time > newest_time) newest = item.path(), newest_time = time;
  }
  return newest;
}

void BuildCache::discard(const fs::path& entry) {
  std::error_code ec;
  fs::remove_all(entry, ec);
}

fs::path BuildCache::get_or_build(const std::string& source_key, const std::string& toolchain_key,
                                  const std::function<void(const fs::path&)>& build, spdlog::logger& log) {
  if (auto entry = find(source_key, toolchain_key)) return *entry;
  const fs::path dir = root_ / "generators" / source_key;
  if (const int e = make_private_dirs(dir)) not_writable(dir, e);

  const fs::path lock_path = dir / (toolchain_key + ".lock");
  const Descriptor lock(::open(lock_path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600));
  if (lock.get() < 0) not_writable(lock_path, errno);
  if (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    log.info("waiting for another process that is compiling the same witness generator ({})", lock_path.string());
    while (::flock(lock.get(), LOCK_EX) != 0)
      if (errno != EINTR) not_writable(lock_path, errno);
  }
  // The lock is released when `lock` closes.
  if (auto entry = find(source_key, toolchain_key)) return *entry;  // built while we waited

  // Folders of builds of this entry that were interrupted (their process died holding the lock).
  std::error_code ec;
  const std::string building_prefix = toolchain_key + std::string(kBuildingMark);
  for (const auto& item : fs::directory_iterator(dir, ec))
    if (item.path().filename().string().starts_with(building_prefix)) fs::remove_all(item.path(), ec);

  const fs::path building = dir / fmt::format("{}{}-{}", building_prefix, ::getpid(), os_random_hex(8));
  if (::mkdir(building.c_str(), 0700) != 0) not_writable(building, errno);
  try {
    build(building);
    for (const auto& item : fs::directory_iterator(building)) sync_path(item.path(), false);
    sync_path(building, true);
    const fs::path entry = dir / toolchain_key;
    if (::rename(building.c_str(), entry.c_str()) != 0) {
      const int e = errno;
      fs::remove_all(building, ec);
      if (!find(source_key, toolchain_key)) not_writable(entry, e);  // a folder left there by another: keep it
    }
    sync_path(dir, true);
    return entry;
  } catch (...) {
    fs::remove_all(building, ec);
    throw;
  }
}

}  // namespace pacer::witness
