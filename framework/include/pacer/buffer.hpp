#pragma once
// A fixed-size array of T whose storage comes from a pacer::Allocator with a Usage hint, returned
// on every path out (RAII). Kernels take their scratch (MSM digits, GLV images, buckets, NTT
// buffers) and key points through it, so the configured allocator decides pages and reuse.
// Without an allocator (tests, tools) the storage comes from aligned operator new.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "pacer/allocator.hpp"
#include "pacer/error.hpp"

namespace pacer {

// none: the caller writes every element before it reads one; value: value-initialised.
enum class BufferInit { none, value };

template <class T>
class AllocatedArray {
  static_assert(std::is_trivially_destructible_v<T>, "elements are never destroyed one by one");

 public:
  AllocatedArray() = default;
  AllocatedArray(Allocator* allocator, size_t count, Usage usage, BufferInit init = BufferInit::none, bool prefault = false)
      : allocator_(allocator), count_(count) {
    if (count == 0) return;
    const size_t bytes = count * sizeof(T);
    if (bytes / sizeof(T) != count) throw FailedError("buffer of " + std::to_string(count) + " elements overflows");
    const size_t align = std::max<size_t>(alignof(T), 64);
    if (allocator_) {
      block_ = allocator_->allocate(bytes, AllocHints{usage, prefault, align});
      if (block_.bytes < bytes) {
        allocator_->deallocate(block_);
        throw FailedError("allocator returned " + std::to_string(block_.bytes) + " bytes for a request of " +
                          std::to_string(bytes));
      }
    } else {
      block_.data = static_cast<std::byte*>(::operator new(bytes, std::align_val_t(align)));
      block_.bytes = bytes;
      block_.cookie = reinterpret_cast<void*>(align);
    }
    if (init == BufferInit::value) std::uninitialized_value_construct_n(data(), count_);
  }
  ~AllocatedArray() { reset(); }
  AllocatedArray(AllocatedArray&& o) noexcept
      : allocator_(o.allocator_), block_(std::exchange(o.block_, Block{})), count_(std::exchange(o.count_, 0)) {}
  AllocatedArray& operator=(AllocatedArray&& o) noexcept {
    if (this != &o) {
      reset();
      allocator_ = o.allocator_;
      block_ = std::exchange(o.block_, Block{});
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  AllocatedArray(const AllocatedArray&) = delete;
  AllocatedArray& operator=(const AllocatedArray&) = delete;

  void reset() noexcept {
    if (!block_.data) return;
    if (allocator_) allocator_->deallocate(block_);
    else ::operator delete(block_.data, std::align_val_t(reinterpret_cast<size_t>(block_.cookie)));
    block_ = Block{};
    count_ = 0;
  }

  T* data() { return reinterpret_cast<T*>(block_.data); }
  const T* data() const { return reinterpret_cast<const T*>(block_.data); }
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + count_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + count_; }
  std::span<T> span() { return {data(), count_}; }
  std::span<const T> span() const { return {data(), count_}; }
  // What the allocator really granted (page size, bytes), for telemetry and tests.
  const Block& block() const { return block_; }

 private:
  Allocator* allocator_ = nullptr;
  Block block_;
  size_t count_ = 0;
};

}  // namespace pacer
