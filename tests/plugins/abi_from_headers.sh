#!/usr/bin/env bash
# pacer::kCxxPluginAbi follows the plugin headers (cmake/PluginAbi.cmake): the build's number is the
# hash of the headers as they are; a change to the code of any header a plugin compiles against
# (one plugin.hpp includes, even indirectly) gives another number, while a comment does not, nor
# does a header no plugin interface includes.
#   usage: abi_from_headers.sh <source dir> <generated cxx_plugin_abi.hpp> <cmake>
set -euo pipefail
src=$1 generated=$2 cmake=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() { if [ "$2" = "$3" ]; then echo "PASS: $1"; else echo "FAIL: $1 (got $2, want $3)"; failures=$((failures + 1)); fi; }
abi_of() { "$cmake" -DINCLUDE_DIR="$1" -P "$src/cmake/PluginAbi.cmake" 2>&1 | tail -n 1; }

cp -r "$src/framework/include" "$work/orig"
built=$(sed -n 's/.*kCxxPluginAbi = \(0x[0-9a-f]*\)u;.*/\1/p' "$generated")
orig=$(abi_of "$work/orig")
check "the build's kCxxPluginAbi is the hash of the headers as they are" "$built" "$orig"

# edit NAME FILE SED-EXPRESSION: a copy of the headers with one edit; prints its ABI number.
edit() {
  rm -rf "$work/$1"; cp -r "$work/orig" "$work/$1"
  sed -i "$3" "$work/$1/pacer/$2"
  cmp -s "$work/orig/pacer/$2" "$work/$1/pacer/$2" && { echo "FAIL: the edit '$3' changed nothing in $2" >&2; exit 1; }
  abi_of "$work/$1"
}
differs() { if [ "$2" != "$orig" ]; then echo "PASS: $1"; else echo "FAIL: $1 (still $orig)"; failures=$((failures + 1)); fi; }
# allocator.hpp: included by plugin.hpp; stages.hpp: only through other headers; thread_pool.hpp: a
# service plugins call (cmake/PluginAbi.cmake's roots).
differs "a new member in allocator.hpp's AllocStats changes the number" \
  "$(edit member allocator.hpp 's/^struct AllocStats {/struct AllocStats {\n  uint64_t added_by_test = 0;/')"
differs "a change in stages.hpp (included indirectly) changes the number" \
  "$(edit indirect stages.hpp '0,/^namespace pacer {/s//namespace pacer {\ninline constexpr int kAddedByTest = 1;/')"
differs "a change in thread_pool.hpp (the pool plugins run on) changes the number" \
  "$(edit pool thread_pool.hpp '0,/^namespace pacer {/s//namespace pacer {\ninline constexpr int kAddedByTest = 1;/')"
check "a comment added to backend.hpp keeps the number" \
  "$(edit comment backend.hpp '0,/^namespace pacer {/s//\/\/ a comment added by the test\nnamespace pacer {/')" "$orig"
check "a change in math/pairing.hpp (no plugin interface includes it) keeps the number" \
  "$(edit unrelated math/pairing.hpp '0,/^namespace pacer::math {/s//namespace pacer::math {\ninline constexpr int kAddedByTest = 1;/')" "$orig"
exit $((failures > 0))
