// The tree digest of a key file (key_digest.hpp).
#include "key_digest.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "../witness/build_cache.hpp"
#include "pacer/files.hpp"
#include "pacer/thread_pool.hpp"

namespace pacer {

namespace {

constexpr size_t kChunkBytes = size_t(1) << 20;
// Chunks per pool task: few enough that claiming a task costs nothing, enough that every
// thread gets one on a key of a few MiB.
constexpr size_t kChunksPerTask = 2;
// A chunk read from the file passes through a buffer of this size (below malloc's mmap threshold,
// so a thread's buffers come back from its arena already faulted in).
constexpr size_t kReadBytes = size_t(64) << 10;

std::string_view as_text(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// The tree over `size` bytes whose chunk c is hashed by chunk_digest(c, begin, length).
std::string tree_digest(uint64_t size, ThreadPool* pool,
                        const std::function<std::string(size_t begin, size_t length)>& chunk_digest) {
  const size_t chunks = std::max<size_t>(1, (size + kChunkBytes - 1) / kChunkBytes);
  std::vector<std::string> chunk_digests(chunks);
  run_tasks(pool, (chunks + kChunksPerTask - 1) / kChunksPerTask, [&](size_t task) {
    for (size_t c = task * kChunksPerTask, end = std::min(chunks, c + kChunksPerTask); c < end; ++c) {
      const size_t begin = c * kChunkBytes;  // below size, or 0 for no bytes
      chunk_digests[c] = chunk_digest(begin, std::min<uint64_t>(kChunkBytes, size - begin));
    }
  });
  witness::KeyHasher root;
  root.add("pacer key content digest 1: sha-256 of 1 MiB chunks");
  root.add(std::to_string(size));
  for (const auto& d : chunk_digests) root.add(d);
  return root.hex();
}

std::string hash_of(std::string_view bytes) {
  witness::KeyHasher chunk;
  chunk.add(bytes);
  return chunk.hex();
}

}  // namespace

std::string key_content_digest(std::span<const std::byte> bytes, ThreadPool* pool) {
  return tree_digest(bytes.size(), pool,
                     [&](size_t begin, size_t length) { return hash_of(as_text(bytes.subspan(begin, length))); });
}

std::optional<std::string> file_content_digest(const std::string& path, const FileIdentity& expected,
                                               ThreadPool* pool) {
  const Descriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  const int fd = file.get();
  if (fd < 0 || file_identity(fd) != expected) return std::nullopt;
  std::atomic<bool> failed{false};
  const std::string digest = tree_digest(expected.size, pool, [&](size_t begin, size_t length) {
    // Streamed through a small buffer: a chunk-sized one, zero-filled, cost a page fault per 4 KiB
    // of every chunk beside the first proofs.
    const auto buffer = std::make_unique_for_overwrite<char[]>(kReadBytes);
    witness::KeyHasher chunk;
    chunk.begin_part(length);
    for (size_t done = 0; done < length;) {
      const ssize_t got = ::pread(fd, buffer.get(), std::min(kReadBytes, length - done), off_t(begin + done));
      if (got <= 0) {
        failed = true;
        return std::string();
      }
      chunk.append(std::string_view(buffer.get(), size_t(got)));
      done += size_t(got);
    }
    return chunk.hex();
  });
  if (failed || file_identity(fd) != expected) return std::nullopt;
  return digest;
}

}  // namespace pacer
