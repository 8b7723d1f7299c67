#pragma once
// The content digest of a key file, what a key-check record is keyed by (check_records.hpp): the
// bytes, never the path or a time. A tree of SHA-256 hashes: the file is cut into fixed 1 MiB
// chunks hashed in parallel on the pool, and the digest is the SHA-256 of the file's size, the
// chunk size and the chunks' hashes in order. Fixed chunks make the digest the same on every
// machine and thread count (a cache dir may be shared); hashing them on every core keeps a
// multi-GB key's digest to a fraction of its load.
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "pacer/files.hpp"

namespace pacer {

class ThreadPool;

// 64 hex digits. `pool` may be null (one thread).
std::string key_content_digest(std::span<const std::byte> bytes, ThreadPool* pool);

// The same digest of the file at `path`, read with pread through a small buffer per task, so that
// hashing adds nothing to the process's resident memory (a mapping's pages would stay in it).
// Nothing when the file is not the one `expected` describes, before or after the reads (another
// file renamed there, or this one written meanwhile), or cannot be read.
std::optional<std::string> file_content_digest(const std::string& path, const FileIdentity& expected,
                                               ThreadPool* pool);

}  // namespace pacer
