/* Test plugin in C99: a descriptor written by hand that says C ABI 99.0, as a plugin built against a
 * future Pacer would. The host must refuse it, naming both versions, without calling anything else. */
#include "pacer/plugin_abi.h"

PACER_PLUGIN_EXPORT const char pacer_plugin_kind_allocator = 1;
PACER_PLUGIN_EXPORT const char pacer_plugin_name[] = "c_wrong_major";

PACER_PLUGIN_EXPORT const pacer_plugin_descriptor* pacer_plugin_entry(void) {
  /* No table: the version is checked first, so nothing past it is read. */
  static const pacer_plugin_descriptor descriptor = {
      sizeof(pacer_plugin_descriptor), 99, 0, PACER_KIND_ALLOCATOR, "c_wrong_major", "9.9.9", "test: C ABI 99.0", 0};
  return &descriptor;
}
