// Test plugin: exports the Pacer aliases by hand with an ABI this host does not speak, as a
// plugin built against a future (or ancient) Pacer would. The host must refuse it, naming both.
#include "pacer/plugin.hpp"

namespace {
pacer::PluginInfo wrong_abi_info() {
  return pacer::PluginInfo{999, pacer::PluginKind::allocator, "wrong_abi", "9.9.9", "test: ABI 999"};
}
std::unique_ptr<pacer::Allocator> wrong_abi_create(const pacer::Params&, pacer::HostServices&) {
  // Never reached: the host checks the ABI first.
  std::abort();
}
}  // namespace

BOOST_DLL_ALIAS(wrong_abi_info, pacer_plugin_info)
BOOST_DLL_ALIAS(wrong_abi_create, pacer_plugin_create)
