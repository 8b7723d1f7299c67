// Libraries another user could have swapped (trusted_path.hpp).
#include "trusted_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "pacer/printable.hpp"

namespace pacer {

namespace fs = std::filesystem;

namespace {

// A path as a message may show it: a folder's listing names any bytes.
std::string shown(const fs::path& p) { return printable(p.string(), 4096); }

std::optional<struct stat> status_of(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return std::nullopt;
  return st;
}

// Why `p` lets another user put a library there, or nothing.
std::optional<std::string> open_to_others(const fs::path& p) {
  const auto st = status_of(p);
  if (!st) return std::nullopt;
  if (st->st_uid != ::geteuid() && st->st_uid != 0)
    return fmt::format("{} belongs to user {}, not to this user or root, and that user could replace the library "
                       "(chown it, or use another folder)",
                       shown(p), st->st_uid);
  if (st->st_mode & S_IWOTH)
    return fmt::format("{} is writable by every user, who could replace or add a library there (chmod o-w it)",
                       shown(p));
  return std::nullopt;
}

}  // namespace

std::optional<std::string> replaceable_by_others(const fs::path& file, std::initializer_list<fs::path> folders) {
  std::error_code ec;
  const fs::path real = fs::canonical(file, ec);
  if (ec) return std::nullopt;
  if (auto why = open_to_others(real)) return why;
  if (auto why = open_to_others(real.parent_path())) return why;
  for (const fs::path& folder : folders)
    if (auto why = open_to_others(folder)) return why;
  for (fs::path p = real.parent_path(); p.has_relative_path(); p = p.parent_path()) {
    const fs::path up = p.parent_path();
    if (const auto st = status_of(up); st && (st->st_mode & S_IWOTH) && !(st->st_mode & S_ISVTX))
      return fmt::format("{} is writable by every user without the sticky bit, so anyone could rename the folders "
                         "below it (chmod o-w or +t it)",
                         shown(up));
  }
  return std::nullopt;
}

}  // namespace pacer
