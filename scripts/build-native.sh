#!/usr/bin/env bash
# Builds the librein.so that rein-yarn's jar bundles, one per platform, into
# target/native/linux-<arch>/ (the folders NativeLoader picks from at run time).
#
# Linked against glibc 2.17 (RHEL/CentOS 7) with cargo-zigbuild and zig, both pinned and fetched
# from PyPI into target/tools/ on first use. Without them it says so loudly and links against this
# machine's glibc instead: that library does not load on older nodes (rein then falls back).
# Builds every linux target whose Rust standard library is installed: the host's always,
# aarch64 (or x86_64) too when `rustup target add` has been able to fetch it, or else when the
# system's own rustc has it (Debian's rustc-web with libstd-rust-web-dev:arm64, which
# scripts/cross-deps.sh installs): that compiler then builds that target alone, in target/cross.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

ZIGLANG_VERSION=0.15.2
CARGO_ZIGBUILD_VERSION=0.24.0
GLIBC_FLOOR=2.17
tools=target/tools/venv
out=target/native

ensure_tools() {
  if [ -x "$tools/bin/cargo-zigbuild" ] \
      && "$tools/bin/cargo-zigbuild" --version 2>/dev/null | grep -qx "cargo-zigbuild $CARGO_ZIGBUILD_VERSION" \
      && [ "$("$tools/bin/python" -m ziglang version 2>/dev/null)" = "$ZIGLANG_VERSION" ]; then
    return 0
  fi
  echo "build-native: fetching ziglang==$ZIGLANG_VERSION and cargo-zigbuild==$CARGO_ZIGBUILD_VERSION from PyPI into $tools"
  rm -rf "$tools"
  python3 -m venv "$tools" \
    && "$tools/bin/pip" install -q --disable-pip-version-check \
         "ziglang==$ZIGLANG_VERSION" "cargo-zigbuild==$CARGO_ZIGBUILD_VERSION"
}

# has_std RUSTC TRIPLE: that compiler has the target's standard library.
has_std() {
  local dir
  dir=$("$1" --print target-libdir --target "$2" 2>/dev/null) && [ -d "$dir" ] \
    && ls "$dir"/libstd-*.rlib >/dev/null 2>&1
}
# A second compiler for targets rustup's lacks: the system's, when it is another rustc.
system_rustc=/usr/bin/rustc
if [ ! -x "$system_rustc" ] || [ "$(command -v rustc)" = "$system_rustc" ]; then
  system_rustc=""
fi

host_arch=$(uname -m)
rm -rf "$out"
mkdir -p "$out"

if ensure_tools; then
  export PATH="$PWD/$tools/bin:$PATH"
  built=0
  for arch in x86_64 aarch64; do
    triple="$arch-unknown-linux-gnu"
    if has_std rustc "$triple"; then
      cargo zigbuild --locked --profile bundle -p rein-jni --target "$triple.$GLIBC_FLOOR"
      lib="target/$triple/bundle/librein.so"
    elif [ "$arch" != "$host_arch" ] && [ -n "$system_rustc" ] && has_std "$system_rustc" "$triple"; then
      echo "build-native: linux-$arch with $system_rustc ($("$system_rustc" --version)): rustup's rustc has no $triple standard library"
      RUSTC="$system_rustc" CARGO_TARGET_DIR=target/cross \
        cargo zigbuild --locked --profile bundle -p rein-jni --target "$triple.$GLIBC_FLOOR"
      lib="target/cross/$triple/bundle/librein.so"
    elif [ "$arch" = "$host_arch" ]; then
      echo "build-native: error: no Rust standard library for the host target $triple" >&2
      exit 1
    else
      echo "build-native: NOTE: skipping linux-$arch: the Rust standard library for $triple is not" \
           "installed (rustup target add $triple, or scripts/cross-deps.sh on Debian); the jar will" \
           "not carry a linux-$arch library" >&2
      continue
    fi
    mkdir -p "$out/linux-$arch"
    cp "$lib" "$out/linux-$arch/librein.so"
    built=$((built + 1))
  done
  echo "build-native: built $built platform(s) against glibc $GLIBC_FLOOR: $(cd "$out" && echo */)"
else
  {
    echo "################################################################################"
    echo "build-native: WARNING: could not fetch zig/cargo-zigbuild; librein is linked against"
    echo "this machine's glibc ($(ldd --version 2>/dev/null | head -1)) and will NOT load on nodes"
    echo "with an older glibc (rein falls back to Hadoop's speculator there)."
    echo "################################################################################"
  } >&2
  cargo build --locked --profile bundle -p rein-jni
  mkdir -p "$out/linux-$host_arch"
  cp target/bundle/librein.so "$out/linux-$host_arch/librein.so"
fi
