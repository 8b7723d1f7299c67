#pragma once
// The backend's lanes and the health of their devices. A proof holds one lane from its first
// backend call to its last; lanes are handed out from the device with the fewest held, so proofs
// spread over the devices; a device that fails takes all its lanes out of service.
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pacer/backend.hpp"
#include "pacer/prover.hpp"

namespace spdlog { class logger; }

namespace pacer {

class LanePool {
 public:
  // Gets a lane, or none when every device has failed. Called with no lock of the pool held.
  using Grant = std::function<void(std::optional<Lane>)>;

  // info.lanes lanes, on info.lane_devices (empty: all on device 0). A backend with no lanes, or
  // whose devices do not match its lanes, is refused (FailedError).
  LanePool(const BackendInfo& info, std::shared_ptr<spdlog::logger> log);

  unsigned lanes() const { return unsigned(lane_device_.size()); }
  unsigned device_of(Lane lane) const { return lane_device_[lane]; }
  unsigned in_service() const;
  Prover::LaneHealth health() const;

  // Grants a free lane now, or queues the request until one is released (first come, first
  // served). With every device failed it grants none at once.
  void acquire(Grant granted);
  // The lane's proof is done with it: to the first waiter, else back to the free set (unless its
  // device has failed meanwhile).
  void release(Lane lane);
  // Takes every lane of `device` out of service, once; with no lane left, the waiters get none.
  void retire_device(unsigned device, const std::string& why);

 private:
  std::optional<Lane> take_free_locked();

  std::shared_ptr<spdlog::logger> log_;
  mutable std::mutex mu_;
  std::vector<unsigned> lane_device_;  // per lane
  std::vector<unsigned> device_busy_;  // lanes held, per device
  std::vector<bool> device_failed_;
  std::vector<Lane> free_;
  std::deque<Grant> waiters_;
  unsigned in_service_ = 0;
};

}  // namespace pacer
