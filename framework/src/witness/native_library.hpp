#pragma once
// A compiled witness generator loaded with dlopen (RTLD_LOCAL, so that the symbols of several
// circuits never meet), and the instances made from it: each instance owns its memory, one thread
// uses it at a time, and instances that ended a witness cleanly are kept for the next call.
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "native/witness_abi.h"

namespace pacer::witness {

class NativeLibrary;

// One instance, leased from the library; destroyed unless release()d back in good order.
class Instance {
 public:
  Instance(std::shared_ptr<const NativeLibrary> library, pacer_wg_instance* handle);
  ~Instance();
  Instance(Instance&& other) noexcept;
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  Instance& operator=(Instance&&) = delete;

  const pacer_wg_api& api() const;
  pacer_wg_instance* get() const { return handle_; }
  // Back to the library's idle list, for the next witness.
  void release();

 private:
  std::shared_ptr<const NativeLibrary> library_;
  pacer_wg_instance* handle_ = nullptr;
};

class NativeLibrary : public std::enable_shared_from_this<NativeLibrary> {
 public:
  // Throws FailedError naming the file when it does not load or lacks the entry point, or has
  // another ABI version.
  static std::shared_ptr<NativeLibrary> load(const std::filesystem::path& file);
  ~NativeLibrary();
  NativeLibrary(const NativeLibrary&) = delete;
  NativeLibrary& operator=(const NativeLibrary&) = delete;

  const pacer_wg_api& api() const { return *api_; }
  const std::filesystem::path& file() const { return file_; }
  // An idle instance, or a new one (InputError with the generator's reason when it cannot start).
  Instance acquire() const;

 private:
  friend class Instance;
  NativeLibrary() = default;
  void give_back(pacer_wg_instance* handle) const;

  static constexpr size_t kMaxIdle = 4;  // instances kept between witnesses (each holds its memory)
  std::filesystem::path file_;
  void* handle_ = nullptr;
  const pacer_wg_api* api_ = nullptr;
  mutable std::mutex mu_;
  mutable std::vector<pacer_wg_instance*> idle_;
};

}  // namespace pacer::witness
