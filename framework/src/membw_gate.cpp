#include "pacer/membw_gate.hpp"

#include <algorithm>

namespace pacer {

bool MembwGate::before(const Waiter& a, const Waiter& b) {
  if (a.ticket.priority != b.ticket.priority) return a.ticket.priority > b.ticket.priority;
  if (a.ticket.job != b.ticket.job) return a.ticket.job < b.ticket.job;  // older proofs first
  return a.order < b.order;
}

std::vector<std::function<void()>> MembwGate::grant_locked() {
  std::vector<std::function<void()>> go;
  while (holders_ < capacity_ && !waiting_.empty()) {
    auto first = std::min_element(waiting_.begin(), waiting_.end(), before);
    go.push_back(std::move(first->go));
    waiting_.erase(first);
    max_holders_ = std::max(max_holders_, ++holders_);
  }
  return go;
}

void MembwGate::run_all(std::vector<std::function<void()>>& callbacks) {
  for (auto& fn : callbacks) fn();
}

void MembwGate::admit(const StageTicket& ticket, std::function<void()> start) {
  if (ticket.cls != ResourceClass::membw) return start();
  std::unique_lock lock(mu_);
  waiting_.push_back({ticket, std::move(start), arrivals_++});
  auto go = grant_locked();
  lock.unlock();
  run_all(go);
}

bool MembwGate::checkpoint(const StageTicket& ticket, std::function<void()> resume) {
  if (ticket.cls != ResourceClass::membw) return true;
  std::unique_lock lock(mu_);
  const bool over = holders_ > capacity_;
  const bool outranked = std::any_of(waiting_.begin(), waiting_.end(),
                                     [&](const Waiter& w) { return w.ticket.priority > ticket.priority; });
  if (!over && !outranked) return true;
  // Yield: give the slot back and wait ahead of every later arrival of the same rank (order 0).
  // Our own resume is never granted in this call: either the stage that outranks us takes the one
  // slot freed, or we were over capacity and no slot is free.
  --holders_;
  waiting_.push_back({ticket, std::move(resume), 0});
  auto go = grant_locked();
  lock.unlock();
  run_all(go);
  return false;
}

void MembwGate::finished(const StageTicket& ticket, bool was_admitted_here) {
  if (ticket.cls != ResourceClass::membw || !was_admitted_here) return;
  std::unique_lock lock(mu_);
  if (holders_ > 0) --holders_;
  auto go = grant_locked();
  lock.unlock();
  run_all(go);
}

void MembwGate::set_capacity(unsigned capacity) {
  std::unique_lock lock(mu_);
  capacity_ = std::max(1u, capacity);
  auto go = grant_locked();
  lock.unlock();
  run_all(go);
}

unsigned MembwGate::capacity() const { std::lock_guard lock(mu_); return capacity_; }
unsigned MembwGate::holders() const { std::lock_guard lock(mu_); return holders_; }
unsigned MembwGate::max_holders() const { std::lock_guard lock(mu_); return max_holders_; }
size_t MembwGate::waiting() const { std::lock_guard lock(mu_); return waiting_.size(); }

}  // namespace pacer
