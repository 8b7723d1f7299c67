#pragma once
// The subgroup checks of the keys one engine loads ([host] check_key_subgroups), done once per key
// and not on every run, and never in the way of the first proof:
//
//  * the key file's content digest (key_digest.hpp) is computed beside the backend's load and looked
//    up in the check records (check_records.hpp) on a thread of its own, while the first proofs run:
//    a valid record means the key passed before, and nothing more is done;
//  * otherwise the key is checked there, through the backend's MSMs over the points it made
//    resident (check_resident_key_subgroups, on a lane of the backend), and recorded when it passes.
//
// Either way proofs on the key run meanwhile but are withheld: the engine hands out none before the
// key's trust has settled, and fails every one with the check's error when it does not pass.
//
// A record is trusted only for the bytes that were made resident: the file must not have changed
// (FileIdentity) between its mapping and the end of the lookup, else the key is checked again; a
// record is written only when it has not changed by the end of the check either.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pacer/backend.hpp"

namespace spdlog { class logger; }

namespace pacer {

class ThreadPool;

// Whether the proofs of one resident key may be handed out: settled once its check ends.
class KeyTrust {
 public:
  // Calls `then` once settled: at once (on this thread) when it is, else on the thread that settles it.
  void when_settled(std::function<void()> then);
  // After settling: null when the key passed, else why it did not.
  std::exception_ptr error() const;
  bool settled() const;
  void settle(std::exception_ptr error);

 private:
  mutable std::mutex mu_;
  bool settled_ = false;
  std::exception_ptr error_;
  std::vector<std::function<void()>> waiters_;
};

class KeyChecks {
 public:
  // How the checks take a lane of the backend (the engine's): `acquire` calls back with a lane, or
  // with none when every device has failed; `release` gives it back after end_proof; `retire`
  // takes a device whose call threw DeviceFailedError out of service.
  struct Lanes {
    std::function<void(std::function<void(std::optional<Lane>)>)> acquire;
    std::function<void(Lane)> release;
    std::function<void(unsigned device, const std::string& why)> retire;
  };

  // records: the folder of check records; empty: none (every run checks its keys).
  KeyChecks(Backend& backend, ThreadPool& pool, std::shared_ptr<spdlog::logger> log,
            std::filesystem::path records, Lanes lanes);
  ~KeyChecks();  // ends the check that runs; those not started settle as failed

  // Makes the key resident on the backend and queues the lookup of its record (and its check where
  // there is none); returns without waiting for either.
  std::shared_ptr<ResidentKey> load(std::shared_ptr<const ProvingKey> key);
  // The trust of a key this object loaded and has not yet seen pass; null for any other key.
  std::shared_ptr<KeyTrust> trust_of(const ResidentKey& key) const;

 private:
  // The key file's content digest (none: unreadable, or the file changed) and when it was done.
  struct Digest {
    std::optional<std::string> value;
    std::chrono::steady_clock::time_point done;
  };
  struct Pending {
    std::shared_ptr<ResidentKey> resident;
    std::shared_ptr<KeyTrust> trust;
    std::future<Digest> digest;  // computed beside the backend's load
    std::chrono::steady_clock::time_point start;
  };
  void run();
  void look_up_or_check(Pending& pending);
  void check(const Pending& pending, const std::string& digest);

  Backend& backend_;
  ThreadPool& pool_;
  std::shared_ptr<spdlog::logger> log_;
  std::filesystem::path records_;
  Lanes lanes_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  // Keys loaded here whose check has not passed yet (weak: a key dropped by its users goes).
  std::map<const ResidentKey*, std::pair<std::weak_ptr<ResidentKey>, std::shared_ptr<KeyTrust>>> trust_;
  std::thread thread_;  // started with the first check
};

}  // namespace pacer
