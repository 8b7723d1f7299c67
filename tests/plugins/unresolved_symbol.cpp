// Test library: exports the entry symbols' names (so the host loads it) but needs a symbol nobody
// defines, so dlopen (RTLD_NOW) fails; the host must report dlerror's message rather than crash
// later.
extern "C" int pacer_test_symbol_that_does_not_exist();
extern "C" __attribute__((visibility("default"))) int pacer_test_calls_missing() {
  return pacer_test_symbol_that_does_not_exist();
}
extern "C" {
__attribute__((visibility("default"))) const void* pacer_plugin_info = nullptr;
__attribute__((visibility("default"))) const void* pacer_plugin_create = nullptr;
}
