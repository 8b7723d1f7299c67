#pragma once
// The C plugin ABI's structs (pacer/plugin_abi.h) to and from the C++ types of pacer/allocator.hpp
// and pacer/stages.hpp, and the size rules of plugin_abi.h, for both sides of the boundary: the
// host's adapters and pacer/c_plugin.hpp (C++ plugins on the C ABI). Header-only, standard library
// only: a plugin that includes it links nothing of Pacer's.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <string>

#include "pacer/allocator.hpp"
#include "pacer/plugin_abi.h"
#include "pacer/stages.hpp"

namespace pacer::cabi {

// The C structs mirror these C++ types; a change here needs its place in plugin_abi.h first (a field
// or value appended, the minor bumped), or C plugins would silently miss it.
static_assert(sizeof(AllocStats) == 11 * sizeof(uint64_t), "a new AllocStats field needs a pacer_alloc_stats field");
static_assert(kUsageCount == PACER_USAGE_STAGING + 1, "a new Usage needs a PACER_USAGE_* value");
static_assert(kStageCount == PACER_STAGE_RELEASE + 1, "a new Stage needs a PACER_STAGE_* value");
static_assert(static_cast<int>(ResourceClass::device) == PACER_CLASS_DEVICE, "ResourceClass and PACER_CLASS_* differ");

// A struct the other side filled: its first struct_size bytes; fields it does not know stay zero.
template <class T>
T read_in(const T* in) {
  T full{};
  if (in) std::memcpy(static_cast<void*>(&full), in, std::min<size_t>(in->struct_size, sizeof(T)));
  full.struct_size = sizeof(T);
  return full;
}

// A struct the other side owns and sized (out->struct_size): only the fields it knows are written.
template <class T>
void write_out(T* out, const T& full) {
  const uint32_t size = out->struct_size;
  std::memcpy(static_cast<void*>(out), &full, std::min<size_t>(size, sizeof(T)));
  out->struct_size = size;
}

// A struct this side fills for the other: zeroed, sized.
template <class T>
T sized() {
  T value{};
  value.struct_size = sizeof(T);
  return value;
}

inline int set_error(pacer_error* err, int code, const char* message) {
  return pacer_error_set(err, code, "%s", message ? message : "");
}

// Runs f; an exception becomes an error code and message (code_of picks the code), so that none
// crosses the C boundary.
template <class F, class CodeOf>
int guarded(pacer_error* err, CodeOf code_of, F&& f) noexcept {
  try {
    return f();
  } catch (const std::exception& e) {
    return set_error(err, code_of(e), e.what());
  } catch (...) {
    return set_error(err, PACER_ERR_FAILED, "an exception that is not a std::exception");
  }
}

inline pacer_alloc_hints to_c(const AllocHints& h) {
  auto c = sized<pacer_alloc_hints>();
  c.usage = static_cast<uint32_t>(h.usage);
  c.prefault = h.prefault ? 1 : 0;
  c.align = h.align;
  return c;
}
inline AllocHints from_c(const pacer_alloc_hints& c) {
  AllocHints h;
  h.usage = c.usage < static_cast<uint32_t>(kUsageCount) ? static_cast<Usage>(c.usage) : Usage::scratch;
  h.prefault = c.prefault != 0;
  h.align = c.align;
  return h;
}

inline pacer_block to_c(const Block& b) {
  auto c = sized<pacer_block>();
  c.pinned = b.pinned ? 1 : 0;
  c.data = b.data;
  c.bytes = b.bytes;
  c.page_bytes = b.page_bytes;
  c.cookie = b.cookie;
  return c;
}
inline Block from_c(const pacer_block& c) {
  return Block{static_cast<std::byte*>(c.data), c.bytes, c.page_bytes, c.pinned != 0, c.cookie};
}

inline pacer_alloc_stats to_c(const AllocStats& s) {
  auto c = sized<pacer_alloc_stats>();
  c.live_bytes = s.live_bytes;
  c.peak_bytes = s.peak_bytes;
  c.allocations = s.allocations;
  c.hugepage_bytes = s.hugepage_bytes;
  c.page_faults = s.page_faults;
  c.fresh_bytes = s.fresh_bytes;
  c.reused_bytes = s.reused_bytes;
  c.cached_bytes = s.cached_bytes;
  c.released_bytes = s.released_bytes;
  c.unmaps = s.unmaps;
  c.fallbacks = s.fallbacks;
  return c;
}
inline AllocStats from_c(const pacer_alloc_stats& c) {
  return AllocStats{c.live_bytes,   c.peak_bytes,   c.allocations,    c.hugepage_bytes, c.page_faults, c.fresh_bytes,
                    c.reused_bytes, c.cached_bytes, c.released_bytes, c.unmaps,         c.fallbacks};
}

inline pacer_stage_ticket to_c(const StageTicket& t) {
  auto c = sized<pacer_stage_ticket>();
  c.stage = static_cast<uint32_t>(t.stage);
  c.job = t.job;
  c.cls = static_cast<uint32_t>(t.cls);
  c.priority = t.priority;
  c.bytes = t.bytes;
  c.part = t.part;
  return c;
}
// Values a later minor may add (a stage, a class) arrive as the nearest this side knows.
inline StageTicket from_c(const pacer_stage_ticket& c) {
  StageTicket t;
  t.job = c.job;
  t.stage = c.stage < static_cast<uint32_t>(kStageCount) ? static_cast<Stage>(c.stage) : Stage::assemble;
  t.cls = c.cls <= static_cast<uint32_t>(ResourceClass::device) ? static_cast<ResourceClass>(c.cls) : ResourceClass::cpu;
  t.bytes = c.bytes;
  t.priority = c.priority;
  t.part = static_cast<uint8_t>(c.part);
  return t;
}

// The monotonic clock as nanoseconds: what pacer_host.now_ns returns and the stats carry.
inline int64_t to_ns(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
inline std::chrono::steady_clock::time_point from_ns(int64_t ns) {
  return std::chrono::steady_clock::time_point(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::nanoseconds(ns)));
}

inline pacer_stage_stats to_c(const StageStats& s) {
  auto c = sized<pacer_stage_stats>();
  c.failed = s.failed ? 1 : 0;
  c.started_ns = to_ns(s.started_at);
  c.ended_ns = to_ns(s.ended_at);
  c.queued_ns = s.queued.count();
  c.paused_ns = s.paused.count();
  c.run_ns = s.run.count();
  c.bytes = s.bytes;
  c.minor_faults = s.minor_faults;
  return c;
}
inline StageStats from_c(const pacer_stage_stats& c) {
  StageStats s;
  s.started_at = from_ns(c.started_ns);
  s.ended_at = from_ns(c.ended_ns);
  s.queued = std::chrono::nanoseconds(c.queued_ns);
  s.paused = std::chrono::nanoseconds(c.paused_ns);
  s.run = std::chrono::nanoseconds(c.run_ns);
  s.bytes = c.bytes;
  s.minor_faults = c.minor_faults;
  s.failed = c.failed != 0;
  return s;
}

}  // namespace pacer::cabi
