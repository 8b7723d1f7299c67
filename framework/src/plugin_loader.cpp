#include "pacer/plugin_loader.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>

#include "c_plugin_host.hpp"
#include "pacer/elf_exports.hpp"
#include "pacer/error.hpp"
#include "pacer/printable.hpp"
#include "trusted_path.hpp"

namespace pacer {

namespace fs = std::filesystem;

namespace {

// The C ABI's one entry point (pacer/plugin_abi.h): allocators and schedulers from any compiler.
constexpr const char* kEntrySymbol = PACER_PLUGIN_ENTRY_SYMBOL;
// The C++ interface's two aliases (PACER_PLUGIN, pacer/plugin.hpp): backends, and our own plugins.
constexpr const char* kInfoSymbol = "pacer_plugin_info";
constexpr const char* kCreateSymbol = "pacer_plugin_create";
// PACER_PLUGIN and PACER_PLUGIN_DEFINE also export pacer_plugin_kind_<kind>, so a library's kind is known before it is
// loaded. Libraries without one (built by hand with BOOST_DLL_ALIAS) are loaded for any kind.
constexpr std::string_view kKindSymbols[] = {"pacer_plugin_kind_backend", "pacer_plugin_kind_allocator",
                                             "pacer_plugin_kind_scheduler"};
// ...and its name (a C string), so that a library of a kind the command uses is loaded only when
// the command asks for that name.
constexpr std::string_view kNameSymbol = "pacer_plugin_name";
constexpr size_t kMaxNameBytes = 64;

// Boost.DLL wraps dlerror() as "...load() failed (dlerror system message: <msg>): Bad file
// descriptor"; the dlerror text is the useful part.
std::string dlopen_reason(const std::exception& e) {
  const std::string what = e.what();
  const std::string marker = "(dlerror system message: ";
  const auto at = what.find(marker);
  if (at == std::string::npos) return what;
  const auto start = at + marker.size();
  const auto end = what.rfind(')');
  return what.substr(start, end == std::string::npos || end < start ? std::string::npos : end - start);
}

std::string join_paths(const std::vector<fs::path>& paths) {
  std::string out;
  for (const auto& p : paths) out += (out.empty() ? "" : ", ") + p.string();
  return out.empty() ? "(nothing)" : out;
}

// Identity of a folder or file for de-duplication (symlinks, "a/../b").
fs::path identity(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : c;
}

std::string duplicate_of(const PluginCandidate& first, const std::string& name) {
  return fmt::format("duplicate {} plugin '{}': {} was found first and is used", kind_name(*first.kind),
                     printable(name), first.file.string());
}

using Library = boost::dll::shared_library;

// The C++ aliases' PluginInfo, its ABI hash checked; a refusal otherwise.
std::optional<std::string> read_cxx_info(Library& library, PluginCandidate& cand, PluginInfo& info) {
  if (!library.has(kInfoSymbol) || !library.has(kCreateSymbol))  // exported, yet dlsym does not see them
    return fmt::format("not a Pacer plugin (no {} / {} alias; see PACER_PLUGIN in pacer/plugin.hpp)", kInfoSymbol,
                       kCreateSymbol);
  // The aliases are pointers: a library may export the names and hold null behind them.
  if (!library.get<const void*>(kInfoSymbol) || !library.get<const void*>(kCreateSymbol))
    return fmt::format("its {} / {} are null", kInfoSymbol, kCreateSymbol);
  try {
    info = library.get_alias<PluginInfo()>(kInfoSymbol)();
  } catch (const std::exception& e) {
    return std::string("reading its plugin info failed: ") + e.what();
  }
  // The abi field comes first in every ABI version, so it is safe to read before anything else.
  cand.abi = info.abi;
  if (info.abi != kCxxPluginAbi)
    return fmt::format("C++ plugin ABI {:#010x} but this host speaks {:#010x}: rebuild the plugin against this Pacer",
                       info.abi, kCxxPluginAbi);
  return std::nullopt;
}

// The C entry's descriptor: its version first (struct_size, abi_major and abi_minor lead every
// version of it), then the rest; the kind's table goes to `api`.
std::optional<std::string> read_c_entry(Library& library, PluginCandidate& cand, PluginInfo& info, const void*& api) {
  if (!library.has(kEntrySymbol)) return fmt::format("not a Pacer plugin (dlsym does not see its {})", kEntrySymbol);
  const auto entry = library.get<const pacer_plugin_descriptor*()>(kEntrySymbol);
  const pacer_plugin_descriptor* d = nullptr;
  try {
    d = entry();
  } catch (...) {
    return fmt::format("its {} threw across the C ABI", kEntrySymbol);
  }
  if (!d) return fmt::format("its {} returned no descriptor", kEntrySymbol);
  if (d->struct_size < offsetof(pacer_plugin_descriptor, abi_minor) + sizeof(d->abi_minor))
    return fmt::format("its descriptor has {} bytes: too few to hold a version", d->struct_size);
  cand.abi = d->abi_major;
  cand.abi_minor = d->abi_minor;
  if (auto refusal = cabi::version_refusal(d->abi_major, d->abi_minor)) return refusal;
  if (auto refusal = cabi::descriptor_refusal(*d)) return refusal;
  info = PluginInfo{d->abi_major, static_cast<PluginKind>(d->kind), d->name, d->version, d->summary};
  api = d->api;
  return std::nullopt;
}

}  // namespace

std::vector<PluginKind> all_plugin_kinds() {
  return {PluginKind::backend, PluginKind::allocator, PluginKind::scheduler};
}

PluginRegistry::PluginRegistry(std::vector<fs::path> search_path, std::vector<PluginKind> kinds)
    : kinds_(std::move(kinds)) {
  std::set<fs::path> seen;
  for (auto& dir : search_path) {
    fs::path abs = fs::absolute(dir).lexically_normal();
    if (!seen.insert(identity(abs)).second) continue;
    search_path_.push_back(abs);
  }
  for (const auto& dir : search_path_) scan(dir);
}

PluginRegistry::~PluginRegistry() = default;

std::vector<fs::path> PluginRegistry::search_path_for(const Config& config) {
  std::vector<fs::path> path = config.host.plugin_dirs;
  if (const char* env = std::getenv("PACER_PLUGIN_PATH")) {
    std::string_view rest = env;
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const std::string_view entry = rest.substr(0, colon);
      if (!entry.empty()) path.emplace_back(std::string(entry));
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    }
  }
#ifdef PACER_INSTALL_PLUGIN_DIR
  path.emplace_back(PACER_INSTALL_PLUGIN_DIR);
#endif
  std::error_code ec;
  const fs::path exe = boost::dll::program_location(ec);
  if (!ec) {
    // The build tree keeps plugins in <build>/lib/pacer next to <build>/bin; an install that was
    // moved keeps them at <prefix>/<libdir>/pacer next to <prefix>/bin.
    path.push_back((exe.parent_path() / ".." / "lib" / "pacer").lexically_normal());
#ifdef PACER_PLUGIN_INSTALL_SUBDIR
    path.push_back((exe.parent_path() / ".." / PACER_PLUGIN_INSTALL_SUBDIR).lexically_normal());
#endif
  }
  return path;
}

void PluginRegistry::scan(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;  // a missing folder on the path is normal (e.g. no install)
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("lib", 0) == 0 && name.size() > 6 && name.ends_with(".so") && entry.is_regular_file(ec))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());  // deterministic order: "first one wins" must mean something
  for (const auto& f : files) consider(f);
}

void PluginRegistry::consider(const fs::path& file) {
  if (!seen_files_.insert(identity(file)).second) return;  // the same library reached through two folders

  PluginCandidate cand;
  cand.file = file;
  auto refuse = [&](std::string reason) {
    cand.refusal = std::move(reason);
    candidates_.push_back(std::move(cand));
  };

  // First, before a byte of it is read: whose library it is.
  if (auto reason = replaceable_by_others(file, {file.parent_path()})) return refuse("not loaded: " + *reason);
  // Before dlopen, which runs the library's constructors: only a file that exports the entry
  // symbols is loaded at all, and only for a kind this command uses.
  std::vector<std::string_view> wanted{kEntrySymbol, kInfoSymbol, kCreateSymbol, kNameSymbol};
  wanted.insert(wanted.end(), std::begin(kKindSymbols), std::end(kKindSymbols));
  std::vector<std::string> exported;
  try {
    exported = elf_exports_among(file.string(), wanted);
  } catch (const Error& e) {
    return refuse(fmt::format("not a Pacer plugin, not loaded ({})", e.what()));
  }
  const auto exports = [&](std::string_view name) {
    return std::find(exported.begin(), exported.end(), name) != exported.end();
  };
  // The C entry wins where a library has both: it is the interface that says its version.
  cand.c_abi = exports(kEntrySymbol);
  if (!cand.c_abi && (!exports(kInfoSymbol) || !exports(kCreateSymbol)))
    return refuse(fmt::format("not a Pacer plugin, not loaded (it exports neither {} (pacer/plugin_abi.h) nor {} / "
                              "{} (PACER_PLUGIN in pacer/plugin.hpp))",
                              kEntrySymbol, kInfoSymbol, kCreateSymbol));
  if (kinds_.empty()) return refuse("not loaded: this command makes no plugins");
  std::optional<PluginKind> marked;
  for (uint32_t k = 0; k < std::size(kKindSymbols); ++k)
    if (exports(kKindSymbols[k])) marked = static_cast<PluginKind>(k);
  if (marked && std::find(kinds_.begin(), kinds_.end(), *marked) == kinds_.end()) {
    cand.kind = marked;
    return refuse(fmt::format("not loaded: a {} plugin, and this command uses none", kind_name(*marked)));
  }

  // Kind and name known from the file: the library waits, unloaded, until the command asks for
  // that name (create) or for every plugin (load_all).
  if (marked && exports(kNameSymbol)) {
    std::optional<std::string> name;
    try {
      name = elf_exported_bytes(file.string(), kNameSymbol, kMaxNameBytes + 1);
    } catch (const Error& e) {
      return refuse(fmt::format("not a Pacer plugin, not loaded ({})", e.what()));
    }
    if (name) {  // a C string: its NUL within the bytes read, and nowhere before
      const size_t nul = name->find('\0');
      if (nul == 0 || nul == std::string::npos || nul + 1 != name->size())
        return refuse(fmt::format("its exported {} is not a C string of 1 to {} bytes", kNameSymbol, kMaxNameBytes));
      name->pop_back();
      cand.kind = marked;
      cand.name = *name;
      if (const auto* first = named(*marked, cand.name)) return refuse(duplicate_of(*first, cand.name));
      cand.pending = true;
      candidates_.push_back(std::move(cand));
      return;
    }
  }
  candidates_.push_back(std::move(cand));
  open(candidates_.size() - 1, marked);
}

const PluginCandidate* PluginRegistry::named(PluginKind kind, const std::string& name) const {
  for (const auto& c : candidates_)
    if ((c.loaded || c.pending) && c.kind == kind && c.name == name) return &c;
  return nullptr;
}

void PluginRegistry::open(size_t index, std::optional<PluginKind> marked) const {
  PluginCandidate& cand = candidates_[index];
  const std::string name_in_file = cand.pending ? cand.name : std::string();
  cand.pending = false;
  auto refuse = [&](std::string reason) { cand.refusal = std::move(reason); };

  auto library = std::make_shared<boost::dll::shared_library>();
  try {
    // rtld_now: a plugin with unresolved symbols fails here, with dlerror's message, instead of
    // aborting the process at its first call.
    library->load(cand.file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    return refuse("cannot load: " + dlopen_reason(e));
  }
  PluginInfo info{};
  const void* c_api = nullptr;
  if (auto refusal = cand.c_abi ? read_c_entry(*library, cand, info, c_api) : read_cxx_info(*library, cand, info))
    return refuse(std::move(*refusal));
  cand.name = info.name ? info.name : "";
  cand.version = info.version ? info.version : "";
  cand.summary = info.summary ? info.summary : "";
  const auto kind_value = static_cast<uint32_t>(info.kind);
  if (kind_value > static_cast<uint32_t>(PluginKind::scheduler))
    return refuse(fmt::format("unknown plugin kind {} (this host knows backend, allocator, scheduler)", kind_value));
  cand.kind = info.kind;
  if (marked && *marked != info.kind)
    return refuse(fmt::format("its symbols mark it as a {} plugin but it says it is a {} plugin",
                              kind_name(*marked), kind_name(info.kind)));
  if (std::find(kinds_.begin(), kinds_.end(), info.kind) == kinds_.end())
    return refuse(fmt::format("not used: a {} plugin, and this command uses none", kind_name(info.kind)));
  if (cand.name.empty()) return refuse("the plugin has an empty name");
  if (!name_in_file.empty() && name_in_file != cand.name)
    return refuse(fmt::format("its exported name '{}' is not the name it gives itself, '{}'", printable(name_in_file),
                              printable(cand.name)));
  // The first of a kind and name wins: one loaded already, or one found earlier that waits.
  for (size_t i = 0; i < candidates_.size(); ++i) {
    const auto& other = candidates_[i];
    if (i != index && (other.loaded || (other.pending && i < index)) && other.kind == cand.kind &&
        other.name == cand.name)
      return refuse(duplicate_of(other, cand.name));
  }

  cand.loaded = true;
  loaded_.push_back(Loaded{index, std::move(library), c_api});
}

void PluginRegistry::load_all() {
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < candidates_.size(); ++i)
    if (candidates_[i].pending) open(i, candidates_[i].kind);
}

std::vector<std::string> PluginRegistry::available(PluginKind kind) const {
  std::lock_guard lock(mu_);
  return available_locked(kind);
}

std::vector<std::string> PluginRegistry::available_locked(PluginKind kind) const {
  std::vector<std::string> names;
  for (const auto& c : candidates_)
    if ((c.loaded || c.pending) && c.kind == kind) names.push_back(c.name);
  std::sort(names.begin(), names.end());
  return names;
}

const PluginRegistry::Loaded& PluginRegistry::find_loaded(PluginKind kind, const std::string& name) const {
  for (const auto& l : loaded_)
    if (candidates_[l.candidate].kind == kind && candidates_[l.candidate].name == name) return l;
  // Named in its file and not loaded yet: load it now (the first of that name; later ones were
  // refused as duplicates when found).
  for (size_t i = 0; i < candidates_.size(); ++i)
    if (candidates_[i].pending && candidates_[i].kind == kind && candidates_[i].name == name) {
      open(i, kind);
      if (candidates_[i].loaded) return loaded_.back();
      break;  // refused: its reason is the answer below
    }

  // Not loaded. If a library with that name was refused, its reason is the useful answer.
  for (const auto& c : candidates_)
    if (!c.loaded && c.name == name && (!c.kind || c.kind == kind))
      throw InputError(fmt::format("{} plugin '{}' was refused: {}: {}", kind_name(kind), printable(name), c.file.string(),
                                   c.refusal));
  // A library refused before its name could be trusted (e.g. another ABI) may be the one meant.
  const auto refused =
      std::count_if(candidates_.begin(), candidates_.end(), [](const auto& c) { return !c.loaded && !c.pending; });
  const auto names = available_locked(kind);
  throw InputError(fmt::format("no {} plugin named '{}' (available: {}; searched: {}{})", kind_name(kind), printable(name),
                               names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")),
                               join_paths(search_path_),
                               refused ? fmt::format("; {} refused, see `pacer plugins`", refused) : ""));
}

template <PluginKind K>
std::shared_ptr<typename FactoryOf<K>::object> PluginRegistry::create(const std::string& name, const Params& params,
                                                                      HostServices& host) const {
  using Object = typename FactoryOf<K>::object;
  std::unique_lock lock(mu_);
  const Loaded loaded = find_loaded(K, name);  // a copy: loaded_ may grow once the lock is let go
  lock.unlock();
  const PluginCandidate& cand = candidates_[loaded.candidate];
  const auto failed = [&](const char* what) {
    return fmt::format("{} plugin '{}' ({}) failed to start: {}", kind_name(K), name, cand.file.string(), what);
  };
  // Through the kind's C table (backends have none: refused when loaded), or the C++ factory.
  const auto make = [&]() -> std::unique_ptr<Object> {
    if constexpr (K == PluginKind::allocator) {
      if (loaded.c_api) return cabi::make_allocator(*static_cast<const pacer_allocator_api*>(loaded.c_api), params, host);
    } else if constexpr (K == PluginKind::scheduler) {
      if (loaded.c_api) return cabi::make_scheduler(*static_cast<const pacer_scheduler_api*>(loaded.c_api), params, host);
    }
    return loaded.library->get_alias<typename FactoryOf<K>::type>(kCreateSymbol)(params, host);
  };

  std::unique_ptr<Object> made;
  try {
    made = make();
  } catch (const InputError& e) {
    throw InputError(failed(e.what()));
  } catch (const std::exception& e) {
    throw FailedError(failed(e.what()));
  } catch (...) {
    throw FailedError(failed("an exception that is not a std::exception"));
  }
  if (!made) throw FailedError(failed("its factory returned no object"));

  // The deleter owns a reference to the library: the object's code stays mapped until it dies.
  std::shared_ptr<Object> object(made.release(), [library = loaded.library](Object* p) { delete p; });
  params.reject_unknown();  // after the factory: only it knows which keys it reads
  return object;
}

template std::shared_ptr<Backend> PluginRegistry::create<PluginKind::backend>(const std::string&, const Params&,
                                                                              HostServices&) const;
template std::shared_ptr<Allocator> PluginRegistry::create<PluginKind::allocator>(const std::string&, const Params&,
                                                                                  HostServices&) const;
template std::shared_ptr<Scheduler> PluginRegistry::create<PluginKind::scheduler>(const std::string&, const Params&,
                                                                                  HostServices&) const;

}  // namespace pacer
