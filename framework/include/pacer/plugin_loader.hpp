#pragma once
// Finds, checks and loads plugins (docs/plugins.md). Every lib*.so on the search path is a
// candidate; each one ends up loaded or refused with a reason, and `pacer plugins` prints them all.
// A library is loaded (dlopen, which runs its constructors) only when its file exports Pacer's
// entry symbols (pacer_plugin_entry of the C ABI, or the C++ interface's two aliases) (read from its ELF symbol table first) and, where it says its kind there, only
// when the command uses plugins of that kind; where it also says its name there (PACER_PLUGIN
// does), only when the command asks for a plugin of that name.
// Objects made by a plugin keep its library loaded (their deleter holds a reference to it), so
// the code behind a vtable can never be unmapped while the object lives.
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pacer/config.hpp"
#include "pacer/plugin.hpp"

namespace boost::dll { class shared_library; }

namespace pacer {

struct PluginCandidate {
  std::filesystem::path file;
  bool loaded = false;
  // Kind and name read from the file, not loaded yet: it is when a command asks for that name.
  bool pending = false;
  std::string refusal;  // why it was refused (empty when loaded or pending)
  // What the library says about itself; empty/unset when it could not be read.
  std::optional<PluginKind> kind;
  bool c_abi = false;       // exports pacer_plugin_entry (pacer/plugin_abi.h), else the C++ aliases
  uint32_t abi = 0;         // C plugins: the major version; C++ plugins: their kCxxPluginAbi hash
  uint32_t abi_minor = 0;   // C plugins
  std::string name, version, summary;
};

// The kinds of plugin a command makes: every kind but for `pacer plugins` (which lists them all),
// and none for commands that prove nothing (verify, report), which build no registry at all.
std::vector<PluginKind> all_plugin_kinds();

class PluginRegistry {
 public:
  // Scans the folders in order; a folder listed twice (or missing) is harmless. A library marked
  // as a kind that is not in `kinds` is listed but not loaded.
  explicit PluginRegistry(std::vector<std::filesystem::path> search_path,
                          std::vector<PluginKind> kinds = all_plugin_kinds());
  ~PluginRegistry();
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // The standard search path: config plugin_dirs, then $PACER_PLUGIN_PATH (colon-separated), then
  // the install dir (PACER_INSTALL_PLUGIN_DIR), then <dir of the executable>/../lib/pacer (so a
  // build tree and a relocated install work as they are).
  static std::vector<std::filesystem::path> search_path_for(const Config& config);

  const std::vector<std::filesystem::path>& search_path() const { return search_path_; }
  // Every lib*.so seen, in search order, loaded, refused or pending.
  const std::vector<PluginCandidate>& candidates() const { return candidates_; }
  // Loads every pending library (`pacer plugins`: each one's status and version).
  void load_all();
  // Names of the plugins of one kind that are loaded or pending, sorted.
  std::vector<std::string> available(PluginKind kind) const;

  // Makes one object with the plugin's factory, then params.reject_unknown().
  // Unknown name -> InputError listing what is available and where it looked; a factory that
  // throws -> its pacer::Error kind (InputError / FailedError) naming plugin and file; any other
  // exception -> FailedError.
  template <PluginKind K>
  std::shared_ptr<typename FactoryOf<K>::object> create(const std::string& name, const Params& params,
                                                        HostServices& host) const;

  std::shared_ptr<Backend> create_backend(const std::string& name, const Params& params, HostServices& host) const {
    return create<PluginKind::backend>(name, params, host);
  }
  std::shared_ptr<Allocator> create_allocator(const std::string& name, const Params& params, HostServices& host) const {
    return create<PluginKind::allocator>(name, params, host);
  }
  std::shared_ptr<Scheduler> create_scheduler(const std::string& name, const Params& params, HostServices& host) const {
    return create<PluginKind::scheduler>(name, params, host);
  }

 private:
  struct Loaded {
    size_t candidate;  // index into candidates_
    std::shared_ptr<boost::dll::shared_library> library;
    const void* c_api = nullptr;  // a C plugin's table for its kind (pacer/plugin_abi.h)
  };
  void scan(const std::filesystem::path& dir);
  void consider(const std::filesystem::path& file);
  // The loaded or pending candidate of that kind and name, if any.
  const PluginCandidate* named(PluginKind kind, const std::string& name) const;
  // dlopens candidate `index` and checks it: loaded, or refused with the reason (with mu_ held).
  void open(size_t index, std::optional<PluginKind> marked) const;
  const Loaded& find_loaded(PluginKind kind, const std::string& name) const;  // with mu_ held
  std::vector<std::string> available_locked(PluginKind kind) const;

  std::vector<std::filesystem::path> search_path_;
  std::vector<PluginKind> kinds_;
  std::set<std::filesystem::path> seen_files_;  // the real path of every library considered, once
  // Loading on demand changes a candidate's state from const lookups (create); candidates are
  // only added by the constructor, so references to them stay valid.
  mutable std::mutex mu_;
  mutable std::vector<PluginCandidate> candidates_;
  mutable std::vector<Loaded> loaded_;
};

extern template std::shared_ptr<Backend> PluginRegistry::create<PluginKind::backend>(const std::string&, const Params&,
                                                                                     HostServices&) const;
extern template std::shared_ptr<Allocator> PluginRegistry::create<PluginKind::allocator>(const std::string&,
                                                                                         const Params&,
                                                                                         HostServices&) const;
extern template std::shared_ptr<Scheduler> PluginRegistry::create<PluginKind::scheduler>(const std::string&,
                                                                                         const Params&,
                                                                                         HostServices&) const;

}  // namespace pacer
