// The backend's lanes and their devices' health (lane_pool.hpp).
#include "lane_pool.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/error.hpp"

namespace pacer {

LanePool::LanePool(const BackendInfo& info, std::shared_ptr<spdlog::logger> log) : log_(std::move(log)) {
  const unsigned lanes = info.lanes;
  if (lanes == 0) throw FailedError("backend declares no lanes: it cannot run a proof");
  if (!info.lane_devices.empty() && info.lane_devices.size() != lanes)
    throw FailedError(fmt::format("backend {} declares {} lanes but names the device of {}", info.name, lanes,
                                  info.lane_devices.size()));
  lane_device_ = info.lane_devices.empty() ? std::vector<unsigned>(lanes, 0) : info.lane_devices;
  const unsigned devices = *std::max_element(lane_device_.begin(), lane_device_.end()) + 1;
  if (devices > lanes)
    throw FailedError(fmt::format("backend {}: a lane's device is {}, above its lane count", info.name, devices - 1));
  device_busy_.assign(devices, 0);
  device_failed_.assign(devices, false);
  in_service_ = lanes;
  for (unsigned l = 0; l < lanes; ++l) free_.push_back(l);
}

unsigned LanePool::in_service() const {
  std::lock_guard lock(mu_);
  return in_service_;
}

Prover::LaneHealth LanePool::health() const {
  std::lock_guard lock(mu_);
  Prover::LaneHealth h;
  h.lanes = lanes();
  h.in_service = in_service_;
  for (unsigned d = 0; d < device_failed_.size(); ++d)
    if (device_failed_[d]) h.failed_devices.push_back(d);
  return h;
}

void LanePool::acquire(Grant granted) {
  std::unique_lock lock(mu_);
  if (free_.empty() && in_service_ > 0) return waiters_.push_back(std::move(granted));
  const std::optional<Lane> lane = take_free_locked();
  lock.unlock();
  granted(lane);
}

// A free lane of the device with the fewest lanes held (ties: the lowest lane).
std::optional<Lane> LanePool::take_free_locked() {
  if (free_.empty()) return std::nullopt;
  auto best = std::min_element(free_.begin(), free_.end(), [&](Lane x, Lane y) {
    const unsigned bx = device_busy_[lane_device_[x]], by = device_busy_[lane_device_[y]];
    return bx != by ? bx < by : x < y;
  });
  const Lane lane = *best;
  free_.erase(best);
  ++device_busy_[lane_device_[lane]];
  return lane;
}

void LanePool::release(Lane lane) {
  std::unique_lock lock(mu_);
  --device_busy_[lane_device_[lane]];
  if (device_failed_[lane_device_[lane]]) return;  // out of service
  free_.push_back(lane);
  if (waiters_.empty()) return;
  auto next = std::move(waiters_.front());
  waiters_.pop_front();
  const std::optional<Lane> given = take_free_locked();
  lock.unlock();
  next(given);
}

void LanePool::retire_device(unsigned device, const std::string& why) {
  std::deque<Grant> stranded;
  {
    std::lock_guard lock(mu_);
    if (device >= device_failed_.size() || device_failed_[device]) return;
    device_failed_[device] = true;
    std::erase_if(free_, [&](Lane l) { return lane_device_[l] == device; });
    in_service_ -= unsigned(std::count(lane_device_.begin(), lane_device_.end(), device));
    if (log_)
      log_->error("backend device {} failed; its lanes are out of service, {} lane{} left: {}", device, in_service_,
                  in_service_ == 1 ? "" : "s", why);
    if (in_service_ == 0) stranded.swap(waiters_);
  }
  for (auto& grant : stranded) grant(std::nullopt);
}

}  // namespace pacer
