// Key checks once per key, beside the first proofs (key_checks.hpp).
#include "key_checks.hpp"

#include <chrono>
#include <future>
#include <system_error>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "check_records.hpp"
#include "key_digest.hpp"
#include "pacer/error.hpp"
#include "pacer/key_check.hpp"
#include "pacer/thread_pool.hpp"

namespace pacer {

namespace {

// A check whose lane's device failed runs once more on another lane; a second failure fails it.
constexpr unsigned kMaxAttempts = 2;

std::string human_ms(std::chrono::steady_clock::duration d) {
  return fmt::format("{:.1f} ms", std::chrono::duration<double, std::milli>(d).count());
}

}  // namespace

void KeyTrust::when_settled(std::function<void()> then) {
  {
    std::lock_guard lock(mu_);
    if (!settled_) return waiters_.push_back(std::move(then));
  }
  then();
}

std::exception_ptr KeyTrust::error() const {
  std::lock_guard lock(mu_);
  return error_;
}

bool KeyTrust::settled() const {
  std::lock_guard lock(mu_);
  return settled_;
}

void KeyTrust::settle(std::exception_ptr error) {
  std::vector<std::function<void()>> waiters;
  {
    std::lock_guard lock(mu_);
    if (settled_) return;
    settled_ = true;
    error_ = std::move(error);
    waiters.swap(waiters_);
  }
  for (auto& w : waiters) w();
}

KeyChecks::KeyChecks(Backend& backend, ThreadPool& pool, std::shared_ptr<spdlog::logger> log,
                     std::filesystem::path records, Lanes lanes)
    : backend_(backend), pool_(pool), log_(std::move(log)), records_(std::move(records)), lanes_(std::move(lanes)) {}

KeyChecks::~KeyChecks() {
  std::deque<Pending> dropped;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    dropped.swap(queue_);
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (auto& p : dropped)
    p.trust->settle(std::make_exception_ptr(FailedError(p.resident->key().path +
                                                        ": the engine stopped before the key's subgroup check ran")));
}

std::shared_ptr<ResidentKey> KeyChecks::load(std::shared_ptr<const ProvingKey> key) {
  const auto start = std::chrono::steady_clock::now();
  // The digest of the bytes the backend is about to read; the record applies to them only if the
  // file is still the one mapped once they are resident. A mapped file is hashed through pread
  // (file_content_digest), not through the mapping, whose touched pages would stay in the
  // process's RSS beside the backend's copy of the points. It is computed beside the backend's
  // load, which does not keep every core busy (on a 2^24 key, 10.9 GB, it took 0.6 s of the 5.7 s
  // before they overlapped), and nothing waits for it but the first proofs' release: at 2^13 it was
  // a third of the key's 8 ms to residency on 16 cores.
  const bool mapped = !(key->file->identity() == FileIdentity{});
  auto hash = [key, mapped, pool = &pool_] {
    Digest digest;
    digest.value = mapped ? file_content_digest(key->path, key->file->identity(), pool)
                          : std::optional<std::string>(key_content_digest(key->file->bytes(), pool));
    digest.done = std::chrono::steady_clock::now();
    return digest;
  };
  std::future<Digest> hashing;
  try {
    hashing = std::async(std::launch::async, hash);
  } catch (const std::system_error&) {
    hashing = std::async(std::launch::deferred, hash);  // no thread to spare: hashed on the check's thread
  }
  std::shared_ptr<ResidentKey> resident;
  try {
    resident = backend_.load(key);
  } catch (...) {
    // It reads the key: let it finish before the key can go (a deferred one never started).
    if (hashing.wait_for(std::chrono::seconds(0)) != std::future_status::deferred) hashing.wait();
    throw;
  }
  auto trust = std::make_shared<KeyTrust>();
  {
    std::lock_guard lock(mu_);
    std::erase_if(trust_, [](const auto& entry) { return entry.second.first.expired(); });
    trust_[resident.get()] = {resident, trust};
    queue_.push_back({resident, trust, std::move(hashing), start});
    if (!thread_.joinable()) {
      try {
        thread_ = std::thread([this] { run(); });
      } catch (const std::system_error& e) {
        trust_.erase(resident.get());
        queue_.pop_back();  // its future joins the digest as it goes
        throw InputError(fmt::format("[host] threads: the system refused to start the key check's thread: {} (raise "
                                     "the limit on processes and threads: ulimit -u, the cgroup's pids.max)",
                                     e.code().message()));
      }
    }
  }
  wake_.notify_all();
  return resident;
}

std::shared_ptr<KeyTrust> KeyChecks::trust_of(const ResidentKey& key) const {
  std::lock_guard lock(mu_);
  const auto it = trust_.find(&key);
  if (it == trust_.end() || it->second.first.lock().get() != &key) return nullptr;
  return it->second.second;
}

void KeyChecks::run() {
  for (;;) {
    Pending next;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    look_up_or_check(next);
  }
}

void KeyChecks::look_up_or_check(Pending& pending) {
  const ProvingKey& key = pending.resident->key();
  Digest digest;
  try {
    digest = pending.digest.get();
  } catch (const std::exception& e) {  // unreadable: the check decides
    if (log_) log_->debug("key {}: no content digest ({}); checking it", key.path, e.what());
  }
  const bool unchanged = digest.value && file_identity(key.path) == key.file->identity();
  if (!records_.empty() && unchanged && KeyCheckRecords(records_).passed(*digest.value)) {
    if (log_)
      log_->debug("key {}: its points passed the subgroup checks before (record {}, digest in {})", key.path,
                  KeyCheckRecords(records_).record_path(*digest.value).string(), human_ms(digest.done - pending.start));
    {
      std::lock_guard lock(mu_);
      trust_.erase(pending.resident.get());
    }
    pending.trust->settle(nullptr);
    return;
  }
  if (log_)
    log_->debug("key {}: no record of a subgroup check{}; checking it beside the first proof", key.path,
                digest.value && !unchanged ? " (the file changed while it was read)" : "");
  check(pending, digest.value.value_or(""));
}

void KeyChecks::check(const Pending& pending, const std::string& digest) {
  const ProvingKey& key = pending.resident->key();
  const auto start = std::chrono::steady_clock::now();
  std::exception_ptr error;
  for (unsigned attempt = 1;; ++attempt) {
    std::promise<std::optional<Lane>> granted;
    lanes_.acquire([&granted](std::optional<Lane> lane) { granted.set_value(lane); });
    const std::optional<Lane> lane = granted.get_future().get();
    if (!lane) {
      error = std::make_exception_ptr(FailedError(key.path + ": no backend lane left for the key's subgroup check: "
                                                             "every device of the backend has failed"));
      break;
    }
    ResidentKey& resident = *pending.resident;
    const KeyPointSums sums{
        [&](Basis basis, std::span<const Fr256> scalars) { return backend_.msm_g1(resident, *lane, basis, scalars, {}); },
        [&](std::span<const Fr256> scalars) { return backend_.msm_g2(resident, *lane, scalars, {}); }};
    std::optional<std::pair<unsigned, std::string>> device_failed;
    try {
      check_resident_key_subgroups(key, sums, pool_);
    } catch (const DeviceFailedError& e) {
      device_failed.emplace(e.device, e.what());
      error = std::current_exception();
    } catch (...) {
      error = std::current_exception();
    }
    backend_.end_proof(*lane);
    lanes_.release(*lane);
    if (!device_failed) break;
    lanes_.retire(device_failed->first, device_failed->second);
    if (attempt == kMaxAttempts) break;
    error = nullptr;
    if (log_) log_->warn("{}; checking key {} again on another device", device_failed->second, key.path);
  }
  const auto checked = std::chrono::steady_clock::now();
  if (!error) {
    std::lock_guard lock(mu_);
    trust_.erase(pending.resident.get());
  }
  if (!error && !records_.empty()) {
    std::string why;
    if (file_identity(key.path) != key.file->identity())
      why = "the file changed while it was checked";
    else if (KeyCheckRecords(records_).remember(digest, &why))
      why.clear();
    if (log_) {
      if (why.empty())
        log_->debug("key {}: every point passed the subgroup checks in {}; recorded in {}", key.path,
                    human_ms(checked - start), KeyCheckRecords(records_).record_path(digest).string());
      else
        log_->warn("key {}: every point passed the subgroup checks in {}, but no record was kept ({}): it will be "
                   "checked again on the next run",
                   key.path, human_ms(checked - start), why);
    }
  } else if (!error && log_) {
    log_->debug("key {}: every point passed the subgroup checks in {} (no record folder)", key.path,
                human_ms(checked - start));
  }
  pending.trust->settle(error);
}

}  // namespace pacer
