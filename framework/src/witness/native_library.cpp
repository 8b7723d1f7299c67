// Loading compiled witness generators and leasing their instances (native_library.hpp).
#include "native_library.hpp"

#include <dlfcn.h>

#include <utility>

#include <fmt/format.h>

#include "fault_guard.hpp"
#include "pacer/error.hpp"

namespace pacer::witness {

Instance::Instance(std::shared_ptr<const NativeLibrary> library, pacer_wg_instance* handle)
    : library_(std::move(library)), handle_(handle) {}

Instance::Instance(Instance&& other) noexcept
    : library_(std::move(other.library_)), handle_(std::exchange(other.handle_, nullptr)) {}

Instance::~Instance() {
  if (handle_) library_->api().destroy(handle_);
}

const pacer_wg_api& Instance::api() const { return library_->api(); }

void Instance::release() {
  if (handle_) library_->give_back(std::exchange(handle_, nullptr));
}

std::shared_ptr<NativeLibrary> NativeLibrary::load(const std::filesystem::path& file) {
  std::shared_ptr<NativeLibrary> lib(new NativeLibrary());
  lib->file_ = file;
  lib->idle_.reserve(kMaxIdle);  // give_back() never allocates
  ::dlerror();
  lib->handle_ = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle_) {
    const char* why = ::dlerror();
    throw FailedError(fmt::format("cannot load the compiled witness generator {}: {}", file.string(),
                                  why ? why : "unknown reason"));
  }
  const auto entry = reinterpret_cast<pacer_wg_entry_fn>(::dlsym(lib->handle_, PACER_WG_ENTRY));
  // An older Pacer's library is never called: its interface differs (no fault guard).
  if (!entry && ::dlsym(lib->handle_, PACER_WG_ENTRY_V1))
    throw FailedError(fmt::format("{}: a witness generator compiled by an older Pacer (interface version 1, this one "
                                  "needs {}); delete it to have it compiled again",
                                  file.string(), PACER_WG_ABI_VERSION));
  lib->api_ = entry ? entry() : nullptr;
  if (!lib->api_ || lib->api_->abi_version != PACER_WG_ABI_VERSION)
    throw FailedError(fmt::format("{}: not a witness generator of this Pacer (no {} of version {})", file.string(),
                                  PACER_WG_ENTRY, PACER_WG_ABI_VERSION));
  // Before any instance: the handler that makes a fault in a generator's memory a trap.
  lib->api_->set_host(&fault_guard_host());
  return lib;
}

NativeLibrary::~NativeLibrary() {
  if (api_)
    for (pacer_wg_instance* idle : idle_) api_->destroy(idle);
  if (handle_) ::dlclose(handle_);
}

Instance NativeLibrary::acquire() const {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      pacer_wg_instance* handle = idle_.back();
      idle_.pop_back();
      return Instance(shared_from_this(), handle);
    }
  }
  char error[512] = {};
  pacer_wg_instance* handle = api_->create(file_.parent_path().c_str(), error, sizeof error);
  if (!handle) throw InputError(fmt::format("the witness generator does not start: {}", error));
  return Instance(shared_from_this(), handle);
}

void NativeLibrary::give_back(pacer_wg_instance* handle) const {
  {
    std::lock_guard lock(mu_);
    if (idle_.size() < kMaxIdle) {
      idle_.push_back(handle);
      return;
    }
  }
  api_->destroy(handle);
}

}  // namespace pacer::witness
