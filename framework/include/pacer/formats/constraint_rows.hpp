#pragma once
// A key's constraint matrices A and B by row (compressed sparse rows): what synthesis reads, in
// the order it reads it. The zkey stores them as records {matrix, constraint, signal, value} in
// whatever order its writer chose (docs/formats.md §5.3); a synthesis that follows them jumps
// through an index into 44-byte records. Built once per key, then streamed: a row's wires and
// coefficients lie next to each other, wires and coefficients in arrays of their own (so a GPU
// reads them coalesced and a CPU prefetches the witness a few terms ahead cheaply).
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "pacer/formats/zkey.hpp"
#include "pacer/types.hpp"

namespace pacer {

class ThreadPool;

namespace detail {
// Leaves new elements uninitialised: the arrays are written in parallel right after they are
// sized, and zeroing gigabytes on one thread first costs more than building them.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
}  // namespace detail

struct ConstraintRows {
  template <class T>
  using Array = std::vector<T, detail::UninitializedAllocator<T>>;
  uint32_t domain = 0;      // rows of A: [0, domain); rows of B: [domain, 2·domain)
  Array<uint32_t> start;    // 2·domain + 1 offsets into wire and coef
  Array<uint32_t> wire;     // the signal each term reads (< n_vars)
  Array<Fr256> coef;        // as the zkey stores it: v·R² (Montgomery form of v·R)
  uint64_t bytes() const { return start.size() * 4 + wire.size() * 4 + coef.size() * sizeof(Fr256); }
  size_t terms() const { return wire.size(); }
};

// From section 4 (a counting sort over rows; stable, so each row keeps the key's order). `pool`
// may be null. read_zkey has checked every record's bounds.
std::shared_ptr<const ConstraintRows> build_constraint_rows(const ProvingKey& key, ThreadPool* pool);

}  // namespace pacer
