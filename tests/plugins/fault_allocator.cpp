// Test-only allocator "fail_nth": plain aligned heap blocks, except that the N-th allocation
// (params: fail_at = N >= 1; usage = a Usage name counts only those, e.g. "abc": keys and witnesses
// come from the allocator too) throws FailedError, as an exhausted pool or a refused mmap would.
#include <atomic>
#include <new>
#include <string>

#include "fault_params.hpp"
#include "pacer/plugin.hpp"

namespace {

class FailNthAllocator final : public pacer::Allocator {
 public:
  explicit FailNthAllocator(const pacer::Params& params) : nth_(params) {}

  pacer::Block allocate(size_t bytes, const pacer::AllocHints& hints) override {
    const int64_t n = nth_.count(hints.usage);
    if (nth_.is_nth(n))
      throw pacer::FailedError("fail_nth allocator: injected fault: allocation " + std::to_string(n) + " of " +
                               std::to_string(bytes) + " bytes refused");
    const size_t align = std::max<size_t>(hints.align, alignof(std::max_align_t));
    pacer::Block block;
    block.bytes = std::max<size_t>(bytes, 1);
    block.page_bytes = 4096;
    block.data = static_cast<std::byte*>(::operator new(block.bytes, std::align_val_t(align)));
    block.cookie = reinterpret_cast<void*>(align);
    live_ += block.bytes;
    return block;
  }

  void deallocate(pacer::Block block) noexcept override {
    if (!block.data) return;
    ::operator delete(block.data, std::align_val_t(reinterpret_cast<size_t>(block.cookie)));
    live_ -= block.bytes;
  }

  pacer::AllocStats stats() const override {
    pacer::AllocStats s;
    s.live_bytes = live_.load();
    s.allocations = uint64_t(nth_.counted());
    return s;
  }

 private:
  fault_params::NthCounter nth_;
  std::atomic<uint64_t> live_{0};
};

std::unique_ptr<pacer::Allocator> make_fail_nth(const pacer::Params& params, pacer::HostServices&) {
  return std::make_unique<FailNthAllocator>(params);
}

}  // namespace

PACER_PLUGIN(allocator, "fail_nth", "0.1.0", "TEST ONLY: heap blocks, the N-th allocation fails", make_fail_nth)
