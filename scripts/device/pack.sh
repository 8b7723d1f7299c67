#!/usr/bin/env bash
# Packs what a run on the GPU machine needs from a build here into .devcarry/dist and its tarball
# .devcarry/dist.tgz (ignored by git; pass one of them to the device tool's `carry`): the host, the framework library, every plugin, and the
# test and benchmark programs. The GPU machine has none of our -dev packages; the build links
# spdlog/fmt header-only, Boost.DLL on std::filesystem and the CUDA runtime statically, so these
# files are all it needs (libstdc++ there is newer than here: binaries from here run there).
#   scripts/device/pack.sh [build dir = build]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
cd "$root"
dist=.devcarry/dist
grep -qx '/.devcarry/' .git/info/exclude 2>/dev/null || echo '/.devcarry/' >>"$(git rev-parse --git-common-dir)/info/exclude"
rm -rf "$dist"
mkdir -p "$dist/bin" "$dist/lib/pacer"
for b in pacer pacer_conformance pacer_cuda_tests pacer_cuda_selftest pacer_bench_kernels pacer_bench_synthesis pacer_membw_hog; do
  [ -x "$build/bin/$b" ] && cp "$build/bin/$b" "$dist/bin/"
done
# The soname file itself, not links: the device tool carries a link as a link.
cp -L "$build"/lib/libpacer_framework.so.0 "$dist/lib/"
cp "$build"/lib/pacer/*.so "$dist/lib/pacer/"
# libpq (the PostgreSQL job queue) and what it loads that a bare image may lack (Kerberos, LDAP,
# SASL, GnuTLS...): every library of pacer's that is not the C/C++ runtime or another part of glibc, which the image has
# newer. The device scripts put dist/lib on LD_LIBRARY_PATH, which serves libpq's own needs too.
ldd "$dist"/bin/* | awk '$3 ~ /^\// {print $3}' |
  grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libresolv|libanl|libnss_[a-z]*|ld-linux[^/]*|libpacer_framework)\.so' |
  sort -u | while read -r lib; do cp -L "$lib" "$dist/lib/"; done
strip --strip-unneeded "$dist"/bin/* "$dist"/lib/*.so* "$dist"/lib/pacer/*.so 2>/dev/null || true
du -sh "$dist"
# The CUDA fat binaries compress well: carry .devcarry/dist.tgz when dist/ and the tree pass the
# device tool's 64 MiB, and unpack it there first (tar -C .devcarry -xzf .devcarry/dist.tgz).
tar -C .devcarry -czf .devcarry/dist.tgz dist
du -sh .devcarry/dist.tgz
