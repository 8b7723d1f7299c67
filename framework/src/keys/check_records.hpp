#pragma once
// Records of keys whose points passed the subgroup checks ([host] check_key_subgroups), so that a
// key is checked once per user and not on every run. One small text file per key under
// <cache dir>/key-checks/, named by the key's content digest (key_digest.hpp) and holding it, with
// an HMAC-SHA-256 over its text under a per-user secret: the file `secret` beside the records,
// 32 random bytes, owned by this user and readable by nobody else (0600), made on first use.
//
// Everything read from that folder is hostile. A record that names another key (one copied over
// from a good key), whose MAC does not match (one edited), or that is not a regular file of a few
// lines, is ignored; so is every record while the secret is not a private regular file of this
// user (one planted by someone else who can write the folder). The key is then checked again.
// Records are written atomically (a private temporary file renamed into place), and a folder that
// cannot be used never fails a proof: the key is checked on every run instead.
#include <filesystem>
#include <string>

namespace pacer {

class KeyCheckRecords {
 public:
  explicit KeyCheckRecords(std::filesystem::path dir);

  // True when a valid record says that the key with this content digest passed. Reads only.
  bool passed(const std::string& digest) const;
  // Records that the key with this digest passed (making the folder and the secret when they are
  // missing). False, with the reason in `why`, when that cannot be done.
  bool remember(const std::string& digest, std::string* why = nullptr) const;

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path record_path(const std::string& digest) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace pacer
