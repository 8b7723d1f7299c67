#pragma once
// Keeps a worker's leases alive: every lease_s / 3 it pushes the stored deadline of each job the
// worker still holds forward by lease_s, and marks the worker alive (its row in <schema>.workers).
// A lease is only that stored deadline, never a row lock held open: a worker that dies, hangs or
// is cut off simply stops renewing, and after lease_s another worker may take the job.
// On a thread of its own with its own connection, so a long proof or a slow result write never
// delays a renewal.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pacer/config.hpp"

namespace spdlog { class logger; }

namespace pacer::host::queue {

struct WorkerIdentity {
  std::string id, host, keys;  // keys: the key ids it holds, comma-separated (for status)
  unsigned slots = 1;
};

class LeaseRenewer {
 public:
  // `held` lists the job ids the worker holds now (called on the renewer's thread).
  LeaseRenewer(const Config::Queue& settings, WorkerIdentity me, std::function<std::vector<std::string>()> held,
               std::shared_ptr<spdlog::logger> log);
  ~LeaseRenewer();  // stops the thread

 private:
  void loop();
  Config::Queue settings_;
  WorkerIdentity me_;
  std::function<std::vector<std::string>()> held_;
  std::shared_ptr<spdlog::logger> log_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace pacer::host::queue
