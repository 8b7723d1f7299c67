#include "pacer/formats/constraint_rows.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "pacer/thread_pool.hpp"

namespace pacer {
namespace {

uint32_t read_u32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Records already in row order (what snarkjs and `pacer setup` write): every record stays where
// it is, so the rows come from one parallel pass: row starts where the row changes, and each task
// copies its own range. False, having built nothing, when some record comes before the one ahead of it.
bool build_in_order(const ProvingKey& key, ThreadPool* pool, ConstraintRows& rows) {
  const size_t n = key.domain_size, slots = 2 * n, record = 12 + key.n8r, count = key.n_coeffs;
  const std::byte* base = key.coeffs.data();
  auto slot_of = [&](size_t i) {
    const std::byte* r = base + i * record;
    return size_t(read_u32(r)) * n + read_u32(r + 4);
  };
  const size_t tasks = std::clamp<size_t>(count / (size_t(1) << 16), 1, pool ? 4 * size_t(pool->size()) : 1);
  const size_t per_task = (count + tasks - 1) / tasks;
  std::atomic<bool> in_order{true};
  run_tasks(pool, tasks, [&](size_t t) {
    const size_t end = std::min(count, (t + 1) * per_task);
    for (size_t i = std::max<size_t>(t * per_task, 1); i < end && in_order.load(std::memory_order_relaxed); ++i)
      if (slot_of(i) < slot_of(i - 1)) in_order = false;
  });
  if (!in_order) return false;
  rows.start.resize(slots + 1);
  rows.wire.resize(count);
  rows.coef.resize(count);
  // Slots s in (slot(i-1), slot(i)] start at i; the ones before the first record at 0, the ones
  // after the last at count. Each slot is written by exactly one i.
  run_tasks(pool, tasks, [&](size_t t) {
    const size_t begin = t * per_task, end = std::min(count, (t + 1) * per_task);
    for (size_t i = begin; i < end; ++i) {
      const std::byte* r = base + i * record;
      const size_t slot = size_t(read_u32(r)) * n + read_u32(r + 4);
      const size_t previous = i == 0 ? 0 : slot_of(i - 1) + 1;
      for (size_t s = previous; s <= slot; ++s) rows.start[s] = uint32_t(i);
      rows.wire[i] = read_u32(r + 8);
      std::memcpy(rows.coef[i].data(), r + 12, sizeof(Fr256));
    }
  });
  const size_t last = count ? slot_of(count - 1) + 1 : 0;
  for (size_t s = last; s <= slots; ++s) rows.start[s] = uint32_t(count);
  return true;
}

}  // namespace

std::shared_ptr<const ConstraintRows> build_constraint_rows(const ProvingKey& key, ThreadPool* pool) {
  auto rows = std::make_shared<ConstraintRows>();
  const size_t n = key.domain_size, slots = 2 * n, record = 12 + key.n8r, count = key.n_coeffs;
  rows->domain = key.domain_size;
  if (build_in_order(key, pool, *rows)) return rows;
  const std::byte* base = key.coeffs.data();
  auto slot_of = [&](size_t i) {
    const std::byte* r = base + i * record;
    return size_t(read_u32(r)) * n + read_u32(r + 4);
  };
  // Counting sort in parallel: each task counts its own range of records per slot, then writes
  // them at offsets that keep the key's order within a row. Each task's counts take 8n bytes, so
  // there are at most as many tasks as records per slot (the counts never outgrow the rows), and
  // a small key is sorted by one.
  const size_t tasks = std::clamp<size_t>(std::min(count / (size_t(1) << 20), count / slots), 1,
                                          pool ? pool->size() : 1);
  const size_t per_task = (count + tasks - 1) / tasks;
  std::vector<std::vector<uint32_t>> counts(tasks);
  run_tasks(pool, tasks, [&](size_t t) {
    auto& c = counts[t];
    c.assign(slots, 0);
    for (size_t i = t * per_task, end = std::min(count, (t + 1) * per_task); i < end; ++i) ++c[slot_of(i)];
  });
  rows->start.assign(slots + 1, 0);
  uint32_t offset = 0;
  for (size_t s = 0; s < slots; ++s) {
    rows->start[s] = offset;
    for (size_t t = 0; t < tasks; ++t) {  // the task's first position in this slot
      const uint32_t here = counts[t][s];
      counts[t][s] = offset;
      offset += here;
    }
  }
  rows->start[slots] = offset;
  rows->wire.resize(count);
  rows->coef.resize(count);
  run_tasks(pool, tasks, [&](size_t t) {
    auto& next = counts[t];
    for (size_t i = t * per_task, end = std::min(count, (t + 1) * per_task); i < end; ++i) {
      const std::byte* r = base + i * record;
      const uint32_t at = next[slot_of(i)]++;
      rows->wire[at] = read_u32(r + 8);
      std::memcpy(rows->coef[at].data(), r + 12, sizeof(Fr256));
    }
  });
  return rows;
}

}  // namespace pacer
