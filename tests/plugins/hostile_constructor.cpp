// Test library with a constructor, which runs as soon as anything dlopens it: it writes the file
// named by $PACER_TEST_CONSTRUCTOR_MARKER, then ends the process with status 0 when
// $PACER_TEST_CONSTRUCTOR_EXIT is set (so that a command that loaded it would seem to succeed).
// Built twice (tests/plugins/CMakeLists.txt): without Pacer's entry symbols, which no command may
// load, and with them (WITH_ENTRY_SYMBOLS), which commands that make no plugin (verify) may not
// load either. Both live in their own folder: no other test scans it.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

namespace {
__attribute__((constructor)) void ran_at_load() {
  if (const char* marker = std::getenv("PACER_TEST_CONSTRUCTOR_MARKER")) {
    const int fd = ::open(marker, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      [[maybe_unused]] const auto n = ::write(fd, "loaded\n", 7);
      ::close(fd);
    }
  }
  if (std::getenv("PACER_TEST_CONSTRUCTOR_EXIT")) ::_exit(0);
}
}  // namespace

#ifdef WITH_ENTRY_SYMBOLS
extern "C" {
__attribute__((visibility("default"))) const void* pacer_plugin_info = nullptr;
__attribute__((visibility("default"))) const void* pacer_plugin_create = nullptr;
}
#endif
