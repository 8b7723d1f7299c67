// The SIGSEGV handler that turns a fault in a generator's memory into a trap (fault_guard.hpp).
#include "fault_guard.hpp"

#include <pthread.h>
#include <signal.h>
#include <ucontext.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "pacer/error.hpp"

namespace pacer::witness {

namespace {

// Initial-exec: reading it in the handler never goes through __tls_get_addr, which may allocate.
constinit thread_local pacer_wg_fault_guard thread_fault_guard __attribute__((tls_model("initial-exec"))) = {};

pacer_wg_fault_guard* thread_guard() { return &thread_fault_guard; }

constinit const pacer_wg_host host = {sizeof(pacer_wg_host), thread_guard};

// The action before ours: written once, before ours is installed; only read afterwards.
struct sigaction previous_action;

// Async-signal-safe throughout: no allocation, no lock, no logging.
void on_sigsegv(int signal, siginfo_t* info, void* context) {
  const pacer_wg_fault_guard& guard = thread_fault_guard;
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  // si_code > 0: a fault the kernel raised, whose si_addr is an address (not a kill(), where the
  // same bytes hold the sender's pid and uid).
  const bool fault = info->si_code > 0;
  if (fault && guard.trap && address >= guard.lo && address < guard.hi) {
    // The trap leaves by longjmp, not by the return that would put back the signal mask of the
    // interrupted code (and setjmp saves none: that would be a system call on every generator
    // call), so the mask is put back here; else SIGSEGV would stay blocked and the thread's next
    // fault would end the process. (SA_NODEFER would not do: TSan runs our handler from its own,
    // with every signal blocked.)
    ::pthread_sigmask(SIG_SETMASK, &static_cast<const ucontext_t*>(context)->uc_sigmask, nullptr);
    guard.trap();  // never returns
  }
  if (previous_action.sa_flags & SA_SIGINFO) {
    previous_action.sa_sigaction(signal, info, context);
  } else if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
    previous_action.sa_handler(signal);
  } else if (fault || previous_action.sa_handler == SIG_DFL) {
    // Not a generator's fault, and no handler before ours: the previous action comes back and the
    // signal does what it would have done without us. A fault comes again when the faulting
    // instruction runs again on return, and ends the process with a core (the kernel delivers a
    // fault even where SIGSEGV is ignored); a signal someone sent is sent again.
    const int saved_errno = errno;
    ::sigaction(SIGSEGV, &previous_action, nullptr);
    if (!fault) ::raise(SIGSEGV);
    errno = saved_errno;
  }
  // (Else a SIGSEGV sent by kill() where it was ignored: ignored still.)
}

void install() {
  if (::sigaction(SIGSEGV, nullptr, &previous_action) != 0)
    throw FailedError(fmt::format("cannot read the SIGSEGV action: {}", std::strerror(errno)));
  struct sigaction action {};
  action.sa_sigaction = on_sigsegv;
  // SA_ONSTACK: a thread with an alternate stack (a sanitizer's) handles a host stack overflow
  // there, as the handler we chain to expects.
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  if (::sigaction(SIGSEGV, &action, nullptr) != 0)
    throw FailedError(
        fmt::format("cannot install the SIGSEGV handler of witness generators: {}", std::strerror(errno)));
}

}  // namespace

const pacer_wg_host& fault_guard_host() {
  static std::once_flag installed;
  std::call_once(installed, install);
  return host;
}

}  // namespace pacer::witness
