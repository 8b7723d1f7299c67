// Test-only allocator "fail_nth": plain aligned heap blocks, except that the N-th allocation
// (params: fail_at = N >= 1; usage = a Usage name counts only those, e.g. "abc": keys and witnesses
// come from the allocator too) throws FailedError, as an exhausted pool or a refused mmap would.
#include <optional>
#include <atomic>
#include <new>
#include <string>

#include "pacer/error.hpp"
#include "pacer/plugin.hpp"

namespace {

class FailNthAllocator final : public pacer::Allocator {
 public:
  FailNthAllocator(int64_t fail_at, std::optional<pacer::Usage> usage) : fail_at_(fail_at), usage_(usage) {}

  pacer::Block allocate(size_t bytes, const pacer::AllocHints& hints) override {
    const int64_t n = !usage_ || hints.usage == *usage_ ? ++count_ : 0;
    if (n == fail_at_)
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
    s.allocations = uint64_t(count_.load());
    return s;
  }

 private:
  const int64_t fail_at_;
  const std::optional<pacer::Usage> usage_;
  std::atomic<int64_t> count_{0};
  std::atomic<uint64_t> live_{0};
};

std::unique_ptr<pacer::Allocator> make_fail_nth(const pacer::Params& params, pacer::HostServices&) {
  const int64_t fail_at = params.get_int("fail_at", 1);
  if (fail_at < 1) throw pacer::InputError(params.where() + " fail_at must be at least 1");
  const std::string name = params.get_string("usage", "");
  std::optional<pacer::Usage> usage;
  for (int u = 0; u <= static_cast<int>(pacer::Usage::staging); ++u)
    if (pacer::usage_name(static_cast<pacer::Usage>(u)) == name) usage = static_cast<pacer::Usage>(u);
  if (!name.empty() && !usage) throw pacer::InputError(params.where() + " usage: not a Usage name (e.g. \"abc\")");
  return std::make_unique<FailNthAllocator>(fail_at, usage);
}

}  // namespace

PACER_PLUGIN(allocator, "fail_nth", "0.1.0", "TEST ONLY: heap blocks, the N-th allocation fails", make_fail_nth)
