#pragma once
// The cache of compiled witness generators, under <cache dir>/generators/, keyed by SHA-256
// hashes of everything that decides the library's bytes (the generator's content, the glue, the
// compilers, Pacer's version), never by a path or a time. An entry appears by a rename of a finished
// folder, so a build that is interrupted leaves nothing that is later loaded; a lock file per key
// makes two processes that need the same entry build it once.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace spdlog { class logger; }

namespace pacer::witness {

// SHA-256 over everything fed to it, as 64 hex digits.
class KeyHasher {
 public:
  KeyHasher();
  ~KeyHasher();
  KeyHasher(const KeyHasher&) = delete;
  KeyHasher& operator=(const KeyHasher&) = delete;
  // Each part is length-prefixed, so ("ab", "c") and ("a", "bc") hash differently.
  void add(std::string_view part);
  // One part fed in pieces: begin_part(size) then pieces of `size` bytes in all through append();
  // the same hash as add() of the whole part.
  void begin_part(uint64_t size);
  void append(std::string_view piece);
  std::string hex();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Entries are generators/<source key>/<toolchain key>/: the source key covers the generator and
// Pacer's glue and version, the toolchain key the compilers. A machine without compilers (a
// proving machine given a prebuilt cache) cannot know its toolchain key, and takes any entry of the
// source key (find_any).
class BuildCache {
 public:
  // root: the cache dir; how_to_change: how the user picks another, for messages.
  BuildCache(std::filesystem::path root, std::string how_to_change);

  // The folder of a finished entry, or nothing.
  std::optional<std::filesystem::path> find(const std::string& source_key, const std::string& toolchain_key) const;
  // The most recently built finished entry of the source key, whatever its toolchain.
  std::optional<std::filesystem::path> find_any(const std::string& source_key) const;

  // The finished entry, built first when missing: build(dir) fills a fresh folder that is renamed
  // into place when it returns (removed when it throws). Waits while another process builds the
  // same entry, and then uses its result. InputError naming the dir and how to pick another when
  // the cache dir is not writable.
  std::filesystem::path get_or_build(const std::string& source_key, const std::string& toolchain_key,
                                     const std::function<void(const std::filesystem::path&)>& build,
                                     spdlog::logger& log);

  // Removes a finished entry that turned out to be unusable (the next get_or_build builds it again).
  void discard(const std::filesystem::path& entry);

  const std::filesystem::path& root() const { return root_; }

 private:
  [[noreturn]] void not_writable(const std::filesystem::path& what, int error) const;
  std::filesystem::path root_;
  std::string how_to_change_;
};

}  // namespace pacer::witness
