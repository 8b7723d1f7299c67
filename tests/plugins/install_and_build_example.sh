#!/usr/bin/env bash
# Proves that a plugin can be written against an installed Pacer alone:
#   1. cmake --install the build tree into a scratch prefix,
#   2. configure + build examples/custom_allocator (C++ interface), examples/c_allocator (C) and
#      examples/cabi_scheduler (C++ on the C ABI) with only CMAKE_PREFIX_PATH pointing there,
#   3. run the installed `pacer plugins` with PACER_PLUGIN_PATH at the new plugins: all loaded.
# usage: install_and_build_example.sh BUILD_DIR EXAMPLE_SRC SCRATCH CMAKE GENERATOR CXX
set -euo pipefail
build_dir=$1 example_src=$2 scratch=$3 cmake=$4 generator=$5 cxx=$6

prefix=$scratch/prefix
example_build=$scratch/custom_allocator
rm -rf -- "$scratch"
mkdir -p -- "$scratch"

echo "== install $build_dir -> $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" > "$scratch/install.log"

echo "== configure + build $example_src against $prefix"
"$cmake" -S "$example_src" -B "$example_build" -G "$generator" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix"
"$cmake" --build "$example_build"

plugin=$(find "$example_build" -name 'libpacer_counting_allocator.so' -print -quit)
if [[ -z $plugin ]]; then
  echo "FAIL: libpacer_counting_allocator.so was not built under $example_build" >&2
  exit 1
fi

# The C ABI's examples: Pacer::plugin_abi (headers only), a C project and a C++ one.
plugin_path=$(dirname "$plugin")
for example in c_allocator cabi_scheduler; do
  echo "== configure + build examples/$example against $prefix"
  "$cmake" -S "$(dirname "$example_src")/$example" -B "$scratch/$example" -G "$generator" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix"
  "$cmake" --build "$scratch/$example"
  plugin_path+=":$scratch/$example/lib/pacer"
done

echo "== $prefix/bin/pacer plugins (PACER_PLUGIN_PATH=$plugin_path)"
out=$(cd "$scratch" && PACER_PLUGIN_PATH=$plugin_path "$prefix/bin/pacer" plugins)
echo "$out"
# Columns: kind name version ABI file status.
if ! grep -Eq '^allocator +counting +[^ ]+ +C\+\+ +[^ ]+ +loaded$' <<<"$out"; then
  echo "FAIL: the installed pacer did not load the out-of-tree 'counting' allocator" >&2
  exit 1
fi
for row in 'allocator +c_counting +[^ ]+ +C/1\.[0-9]+ +[^ ]+ +loaded' 'scheduler +slots +[^ ]+ +C/1\.[0-9]+ +[^ ]+ +loaded'; do
  if ! grep -Eq "^$row\$" <<<"$out"; then
    echo "FAIL: the installed pacer did not load an example on the C ABI: no row '$row'" >&2
    exit 1
  fi
done
for real in plain greedy; do
  if ! grep -Eq "^[a-z]+ +$real +[^ ]+ +[^ ]+ +$prefix/lib[^ ]*/pacer/[^ ]+ +loaded\$" <<<"$out"; then
    echo "FAIL: the installed pacer did not find its own '$real' plugin in $prefix/lib/pacer" >&2
    exit 1
  fi
done
echo "PASS"
