// Test library: a perfectly good shared library that is not a Pacer plugin (no aliases).
extern "C" __attribute__((visibility("default"))) int pacer_test_not_a_plugin_answer() { return 42; }
