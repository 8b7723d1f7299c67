// Test plugin: an allocator in C++ on the C ABI (pacer/c_plugin.hpp) whose code throws, to show that
// no exception crosses the boundary: each one reaches the host as a code and its message.
// params: throw_in = "nothing" | "create" | "create_input" | "allocate" | "stats" | "other" (a
// throw that is not a std::exception, from allocate).
#include <cstdlib>
#include <string>

#include "pacer/c_plugin.hpp"

namespace {

class ThrowingAllocator final : public pacer::Allocator {
 public:
  explicit ThrowingAllocator(std::string where) : where_(std::move(where)) {}
  pacer::Block allocate(size_t bytes, const pacer::AllocHints&) override {
    if (where_ == "allocate") throw std::runtime_error("c_throwing: injected fault in allocate");
    if (where_ == "other") throw 42;
    return pacer::Block{static_cast<std::byte*>(std::malloc(bytes)), bytes, 4096, false, nullptr};
  }
  void deallocate(pacer::Block block) noexcept override { std::free(block.data); }
  pacer::AllocStats stats() const override {
    if (where_ == "stats") throw std::runtime_error("c_throwing: injected fault in stats");
    return {};
  }

 private:
  std::string where_;
};

std::unique_ptr<pacer::Allocator> make_throwing(const pacer::cabi::ParamsView& params, pacer::cabi::Host&) {
  const std::string where = params.get_string("throw_in", "nothing");
  if (where == "create") throw std::runtime_error("c_throwing: injected fault in create");
  if (where == "create_input") throw pacer::cabi::InputError("c_throwing: injected bad input in create");
  return std::make_unique<ThrowingAllocator>(where);
}

}  // namespace

PACER_C_PLUGIN(allocator, "c_throwing", "0.1.0", "TEST ONLY: a C++ allocator on the C ABI that throws on cue",
               make_throwing)
