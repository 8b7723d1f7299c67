// Test plugin: a second allocator called "plain". Searched after the real one it must be refused,
// naming the file that won.
#include <cstdlib>

#include "pacer/plugin.hpp"

namespace {
std::unique_ptr<pacer::Allocator> make_duplicate(const pacer::Params&, pacer::HostServices&) { std::abort(); }
}  // namespace

PACER_PLUGIN(allocator, "plain", "0.0.1", "test: duplicate of the real plain allocator", make_duplicate)
