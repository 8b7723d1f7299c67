// Test plugin: the right ABI but a kind this host does not know (7).
#include "pacer/plugin.hpp"

namespace {
pacer::PluginInfo unknown_kind_info() {
  return pacer::PluginInfo{pacer::kCxxPluginAbi, static_cast<pacer::PluginKind>(7), "unknown_kind", "0.0.1",
                           "test: kind 7"};
}
std::unique_ptr<pacer::Allocator> unknown_kind_create(const pacer::Params&, pacer::HostServices&) { std::abort(); }
}  // namespace

BOOST_DLL_ALIAS(unknown_kind_info, pacer_plugin_info)
BOOST_DLL_ALIAS(unknown_kind_create, pacer_plugin_create)
