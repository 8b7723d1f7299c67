// Key-check records (framework/src/keys/check_records.hpp) and the key content digest they are
// keyed by (key_digest.hpp): a record lets exactly the key it was written for through, and nothing
// an attacker who can write the cache folder makes does.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include <openssl/sha.h>

#include "keys/check_records.hpp"
#include "keys/key_digest.hpp"
#include "pacer/thread_pool.hpp"
#include "temp_dir.hpp"

using namespace pacer;
using test_files::read_text;
using test_files::TempDir;
using test_files::write_text;
namespace fs = std::filesystem;

namespace {

const std::string kKeyA(64, 'a'), kKeyB(64, 'b');

std::vector<std::byte> pattern(size_t size, unsigned seed) {
  std::vector<std::byte> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = std::byte((i * 131 + seed * 7 + (i >> 11)) & 0xff);
  return bytes;
}

std::string sha256_hex(const void* data, size_t size) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(static_cast<const unsigned char*>(data), size, d);
  std::string out;
  for (unsigned char c : d) out += "0123456789abcdef"[c >> 4], out += "0123456789abcdef"[c & 15];
  return out;
}

// The tree digest as key_digest.hpp defines it, computed here with OpenSSL's one-shot SHA-256 and
// the length prefixes of KeyHasher (a u64 size before each part).
std::string tree_digest_oracle(const std::vector<std::byte>& bytes) {
  const auto framed = [](const std::vector<std::string>& parts) {
    std::string s;
    for (const auto& p : parts) {
      const uint64_t n = p.size();
      s.append(reinterpret_cast<const char*>(&n), 8);
      s += p;
    }
    return sha256_hex(s.data(), s.size());
  };
  constexpr size_t kChunk = size_t(1) << 20;
  std::vector<std::string> parts = {"pacer key content digest 1: sha-256 of 1 MiB chunks", std::to_string(bytes.size())};
  for (size_t at = 0; at < bytes.size() || at == 0; at += kChunk) {
    const size_t n = std::min(kChunk, bytes.size() - at);
    parts.push_back(framed({std::string(reinterpret_cast<const char*>(bytes.data() + at), n)}));
    if (bytes.empty()) break;
  }
  return framed(parts);
}

}  // namespace

TEST_CASE("key digest: the same on one thread and on four, equal to the tree of SHA-256 it defines",
          "[key_records]") {
  ThreadPool pool(4);
  for (size_t size : {size_t(1), size_t(1) << 20, (size_t(5) << 20) + 17}) {
    INFO("size " << size);
    const auto bytes = pattern(size, 1);
    const std::string one = key_content_digest(bytes, nullptr);
    CHECK(one == key_content_digest(bytes, &pool));
    CHECK(one == tree_digest_oracle(bytes));
    CHECK(one.size() == 64);
  }
}

TEST_CASE("key digest: any changed byte, and any change of length, changes it", "[key_records]") {
  ThreadPool pool(2);
  auto bytes = pattern((size_t(3) << 20) + 5, 2);
  const std::string before = key_content_digest(bytes, &pool);
  for (size_t at : {size_t(0), size_t(1) << 20, bytes.size() - 1}) {
    bytes[at] ^= std::byte(1);
    CHECK(key_content_digest(bytes, &pool) != before);
    bytes[at] ^= std::byte(1);
  }
  CHECK(key_content_digest(std::span(bytes).first(bytes.size() - 1), &pool) != before);
  CHECK(key_content_digest(bytes, &pool) == before);
}

TEST_CASE("key digest of a file: the digest of its bytes, read in pieces, and nothing once the file changed",
          "[key_records]") {
  TempDir tmp;
  ThreadPool pool(3);
  for (size_t size : {size_t(0), size_t(1), (size_t(64) << 10) + 3, (size_t(5) << 20) + 17}) {
    INFO("size " << size);
    const auto bytes = pattern(size, 3);
    const fs::path file = tmp.path / ("key" + std::to_string(size));
    write_text(file, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    const auto identity = file_identity(file.string());
    REQUIRE(identity);
    const auto digest = file_content_digest(file.string(), *identity, &pool);
    REQUIRE(digest);
    CHECK(*digest == key_content_digest(bytes, nullptr));
    CHECK(file_content_digest(file.string(), *identity, nullptr) == digest);
    write_text(file, "another key");
    CHECK_FALSE(file_content_digest(file.string(), *identity, &pool));
  }
}

TEST_CASE("key records: a key recorded as passed is found, and no other key is", "[key_records]") {
  TempDir tmp;
  const KeyCheckRecords records(tmp.path / "cache" / "key-checks");
  CHECK_FALSE(records.passed(kKeyA));  // no folder yet
  std::string why;
  REQUIRE(records.remember(kKeyA, &why));
  CHECK(records.passed(kKeyA));
  CHECK_FALSE(records.passed(kKeyB));
  // Private: the folder 0700, the secret and the record 0600.
  struct stat st {};
  REQUIRE(::stat(records.dir().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(::stat((records.dir() / "secret").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat(records.record_path(kKeyA).c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  // Nothing left behind by the atomic writes.
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(records.dir())) {
    ++files;
    CHECK(entry.path().filename().string().rfind(".tmp-", 0) == std::string::npos);
  }
  CHECK(files == 2);
}

TEST_CASE("key records: a record copied from another key does not let that key through", "[key_records]") {
  TempDir tmp;
  const KeyCheckRecords records(tmp.path / "key-checks");
  REQUIRE(records.remember(kKeyA));
  fs::copy_file(records.record_path(kKeyA), records.record_path(kKeyB));
  ::chmod(records.record_path(kKeyB).c_str(), 0600);
  CHECK_FALSE(records.passed(kKeyB));
  CHECK(records.passed(kKeyA));
}

TEST_CASE("key records: an edited record does not let a key through", "[key_records]") {
  TempDir tmp;
  const KeyCheckRecords records(tmp.path / "key-checks");
  REQUIRE(records.remember(kKeyA));
  const std::string text = read_text(records.record_path(kKeyA));
  // The other key's digest written into the first key's record, saved under the other key's name.
  std::string forged = text;
  for (size_t at = forged.find(kKeyA); at != std::string::npos; at = forged.find(kKeyA)) forged.replace(at, 64, kKeyB);
  write_text(records.record_path(kKeyB), forged);
  ::chmod(records.record_path(kKeyB).c_str(), 0600);
  CHECK_FALSE(records.passed(kKeyB));
  // One character of the MAC, of the text, a line added, the file cut short: each is refused.
  const size_t mac = text.find("hmac-sha256 ") + 12;
  std::string mac_changed = text, text_changed = text;
  mac_changed[mac] = text[mac] == '0' ? '1' : '0';
  text_changed[0] = 'P';
  for (const std::string& edited : {mac_changed, text_changed, text + "extra\n", text.substr(0, text.size() - 1)}) {
    write_text(records.record_path(kKeyA), edited);
    CHECK_FALSE(records.passed(kKeyA));
  }
  write_text(records.record_path(kKeyA), text);
  CHECK(records.passed(kKeyA));
}

TEST_CASE("key records: a secret that is not a private file of this user makes every record void",
          "[key_records]") {
  TempDir tmp;
  const KeyCheckRecords records(tmp.path / "key-checks");
  REQUIRE(records.remember(kKeyA));
  const fs::path secret = records.dir() / "secret";
  ::chmod(secret.c_str(), 0644);  // readable by others: anyone could have made a MAC with it
  CHECK_FALSE(records.passed(kKeyA));
  std::string why;
  CHECK_FALSE(records.remember(kKeyB, &why));
  CHECK_THAT(why, Catch::Contains("not a private file of this user"));
  ::chmod(secret.c_str(), 0600);
  CHECK(records.passed(kKeyA));
  // A secret replaced by a symlink to a private file (of another folder) is not followed.
  const fs::path elsewhere = tmp.path / "planted";
  fs::copy_file(secret, elsewhere);
  fs::remove(secret);
  fs::create_symlink(elsewhere, secret);
  CHECK_FALSE(records.passed(kKeyA));
}

TEST_CASE("key records: a record planted as a symlink or a folder is ignored", "[key_records]") {
  TempDir tmp;
  const KeyCheckRecords records(tmp.path / "key-checks");
  REQUIRE(records.remember(kKeyA));
  fs::create_symlink(records.record_path(kKeyA), records.record_path(kKeyB));
  CHECK_FALSE(records.passed(kKeyB));
  const std::string kKeyC(64, 'c');
  fs::create_directory(records.record_path(kKeyC));
  CHECK_FALSE(records.passed(kKeyC));
  CHECK_FALSE(records.remember(kKeyC));  // cannot be renamed over a folder: not recorded, no error
  CHECK_FALSE(records.passed("../" + kKeyA.substr(3)));  // only digests name records
}

TEST_CASE("key records: a folder that cannot be made is no error, only no record", "[key_records]") {
  TempDir tmp;
  write_text(tmp.path / "a-file", "x");  // where the cache folder should be: mkdir fails, even for root
  const KeyCheckRecords records(tmp.path / "a-file" / "key-checks");
  std::string why;
  CHECK_FALSE(records.remember(kKeyA, &why));
  CHECK_THAT(why, Catch::Contains("cannot make"));
  CHECK_FALSE(records.passed(kKeyA));
}

TEST_CASE("key records: a secret owned by another user makes every record void", "[key_records]") {
  if (::geteuid() != 0) return;  // only root can give a file away
  TempDir tmp;
  const KeyCheckRecords records(tmp.path / "key-checks");
  REQUIRE(records.remember(kKeyA));
  REQUIRE(::chown((records.dir() / "secret").c_str(), 65534, 65534) == 0);
  CHECK_FALSE(records.passed(kKeyA));
}
