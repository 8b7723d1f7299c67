// circom's C++ witness generator (the folder circom --c writes) as a library with Pacer's witness
// interface (witness_abi.h). Compiled with circom's own files (its main.cpp with main renamed,
// for loadCircuit) and circom_prelude.hpp / assert.h, which route the generated code's output
// and failures to the call that runs it.
//
// One Circom_Circuit per library (the .dat, read once, read-only afterwards); one Circom_CalcWit
// per witness, owned by an instance that one thread uses at a time.
#include <condition_variable>
#include <cstdarg>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "calcwit.hpp"
#include "circom.hpp"
#include "fr.hpp"
#include "witness_abi.h"

#define EXPORT __attribute__((visibility("default")))

// Defined in circom's main.cpp.
Circom_Circuit* loadCircuit(std::string const& datFileName);

struct pacer_wg_instance {
  Circom_CalcWit* calc = nullptr;
  std::string last_error;
  std::string line;  // printf output not yet ended by a newline
  pacer_wg_log_fn log = nullptr;
  void* log_context = nullptr;
};

namespace {

// Circom_CalcWit's destructor frees nothing, and its input flags are private. An explicit
// template instantiation may name a private member (the standard exempts it from access checks),
// which gives the instance the flags' address to free them.
struct InputFlagsMember {
  using type = bool* Circom_CalcWit::*;
  friend type member_of(InputFlagsMember);
};
template <class Tag, typename Tag::type Member>
struct ExposeMember {
  friend typename Tag::type member_of(Tag) { return Member; }
};
template struct ExposeMember<InputFlagsMember, &Circom_CalcWit::inputSignalAssigned>;

// What a failed assert or exit() throws, up to the call's boundary.
struct CircuitFailure {
  std::string message;
};

// The witness call that runs on this thread.
struct Call {
  pacer_wg_instance* instance = nullptr;
  std::ostringstream out;  // what the circuit wrote to cout
};
thread_local Call* current_call = nullptr;

std::once_flag circuit_once;
Circom_Circuit* circuit = nullptr;
std::string circuit_error;

constexpr size_t kTextLimit = 8192;

void emit_lines(pacer_wg_instance* instance) {
  for (size_t end; (end = instance->line.find('\n')) != std::string::npos;) {
    if (instance->log) instance->log(instance->log_context, instance->line.substr(0, end).c_str());
    instance->line.erase(0, end + 1);
  }
  if (instance->line.size() > kTextLimit) instance->line.resize(kTextLimit);
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char& c : s)
    if (c == '\n') c = ' ';
  return s.size() > kTextLimit ? s.substr(0, kTextLimit) : s;
}

// Runs body with every failure caught: PACER_WG_OK, or an error status with last_error set.
int guarded(pacer_wg_instance* instance, const std::function<void()>& body) {
  Call call;
  call.instance = instance;
  Call* const outer = current_call;
  current_call = &call;
  int status = PACER_WG_OK;
  try {
    body();
  } catch (const CircuitFailure& failure) {
    instance->last_error = failure.message;
    status = PACER_WG_CIRCUIT_ERROR;
  } catch (const std::bad_alloc&) {
    instance->last_error = "out of memory";
    status = PACER_WG_GENERATOR_ERROR;
  } catch (const std::exception& e) {
    instance->last_error = trimmed(call.out.str() + " " + e.what());
    status = PACER_WG_GENERATOR_ERROR;
  } catch (...) {
    instance->last_error = "unknown exception";
    status = PACER_WG_GENERATOR_ERROR;
  }
  current_call = outer;
  return status;
}

void free_calc(pacer_wg_instance* instance) {
  Circom_CalcWit* calc = instance->calc;
  if (!calc) return;
  instance->calc = nullptr;
  delete[] (calc->*member_of(InputFlagsMember{}));
  delete[] calc->signalValues;
  delete[] calc->componentMemory;
  delete calc;
}

pacer_wg_instance* create(const char* data_dir, char* error, size_t error_size) {
  auto* instance = new (std::nothrow) pacer_wg_instance();
  if (!instance) {
    std::snprintf(error, error_size, "out of memory for a generator instance");
    return nullptr;
  }
  const int status = guarded(instance, [&] {
    std::call_once(circuit_once, [&] {
      try {
        circuit = loadCircuit(std::string(data_dir) + "/circuit.dat");
      } catch (const CircuitFailure& failure) {
        circuit_error = failure.message;
      } catch (const std::exception& e) {
        circuit_error = trimmed(current_call->out.str() + " " + e.what());
      }
    });
    if (!circuit) throw std::runtime_error("cannot load circuit.dat: " + circuit_error);
  });
  if (status != PACER_WG_OK) {
    std::snprintf(error, error_size, "%s", instance->last_error.c_str());
    delete instance;
    return nullptr;
  }
  return instance;
}

void destroy(pacer_wg_instance* instance) {
  if (!instance) return;
  free_calc(instance);
  delete instance;
}

void set_log(pacer_wg_instance* instance, pacer_wg_log_fn fn, void* context) {
  instance->log = fn;
  instance->log_context = context;
}
const char* last_error(const pacer_wg_instance* instance) { return instance->last_error.c_str(); }
uint32_t field_words(const pacer_wg_instance*) { return Fr_N64 * 2; }
void prime(const pacer_wg_instance*, uint32_t* words) { std::memcpy(words, Fr_q.longVal, Fr_N64 * 8); }
uint32_t witness_size(const pacer_wg_instance*) { return get_size_of_witness(); }
uint32_t input_count(const pacer_wg_instance*) { return get_main_input_signal_no(); }

int begin(pacer_wg_instance* instance) {
  return guarded(instance, [&] {
    free_calc(instance);
    instance->line.clear();
    instance->calc = new Circom_CalcWit(circuit);
    if (get_main_input_signal_no() == 0) instance->calc->tryRunCircuit();  // nothing to wait for
  });
}

int input_size(pacer_wg_instance* instance, uint64_t hash, int64_t* size) {
  *size = -1;
  return guarded(instance, [&] {
    const uint n = get_size_of_input_hashmap();
    for (uint i = 0; i < n; ++i)
      if (circuit->InputHashMap[i].hash == hash && circuit->InputHashMap[i].signalsize > 0)
        *size = static_cast<int64_t>(circuit->InputHashMap[i].signalsize);
  });
}

int set_input(pacer_wg_instance* instance, uint64_t hash, uint32_t index, const uint32_t* words) {
  return guarded(instance, [&] {
    FrElement value;
    value.shortVal = 0;
    value.type = Fr_LONG;
    std::memcpy(value.longVal, words, Fr_N64 * 8);
    instance->calc->setInputSignal(hash, index, value);  // runs the circuit after the last input
  });
}

int witness(pacer_wg_instance* instance, uint32_t* words) {
  return guarded(instance, [&] {
    const uint n = get_size_of_witness();
    for (uint i = 0; i < n; ++i) {
      FrElement value;
      instance->calc->getWitness(i, &value);
      Fr_toLongNormal(&value, &value);
      std::memcpy(words + size_t(i) * Fr_N64 * 2, value.longVal, Fr_N64 * 8);
    }
    if (!instance->line.empty()) instance->line += '\n';  // a log line the circuit left open
    emit_lines(instance);
  });
}

// The host's fault guard is for wasm linear memory; circom's C++ has none.
void set_host(const pacer_wg_host*) {}

const pacer_wg_api api = {
    PACER_WG_ABI_VERSION, "circom-cpp", set_host, create, destroy, set_log, last_error, field_words, prime,
    witness_size, input_count, begin, input_size, set_input, witness,
};

}  // namespace

// ---- what circom_prelude.hpp and assert.h route the generated code to ------------------------

std::ostream& std::pacer_circom_cout() {
  static std::ostringstream outside_a_call;  // never written in practice: every call is guarded
  return current_call ? static_cast<std::ostream&>(current_call->out) : outside_a_call;
}

int std::pacer_circom_printf(const char* format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  if (current_call && n > 0) {
    current_call->instance->line += buffer;
    emit_lines(current_call->instance);
  }
  return n;
}

void std::pacer_circom_exit(int code) {
  throw CircuitFailure{trimmed(current_call ? current_call->out.str() : std::string()) + " (the generator called exit(" +
                       std::to_string(code) + "))"};
}

void pacer_circom_assert_failed(const char* expression, const char* file, int line) {
  std::string said = current_call ? trimmed(current_call->out.str()) : std::string();
  if (said.empty()) said = std::string("assert(") + expression + ") failed at " + file + ":" + std::to_string(line);
  throw CircuitFailure{said};
}

extern "C" EXPORT const pacer_wg_api* pacer_witness_generator_v2() { return &api; }
