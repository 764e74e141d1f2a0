#!/usr/bin/env bash
# Installs what scripts/build-native.sh needs to build librein.so for linux-aarch64 on an x86_64
# Debian 12 machine whose rustup cannot fetch the aarch64 standard library: Debian's own compiler
# (rustc-web, /usr/bin/rustc) and its aarch64 standard library (libstd-rust-web-dev:arm64), from
# the Debian archive. zig links the result against glibc 2.17 as it does the x86_64 one.
# Best effort: it needs root, apt-get and the Debian archive; without them it says why and exits 0
# (the jar then carries linux-x86_64 only, and build-native.sh says so).
#   scripts/cross-deps.sh
set -uo pipefail

note() { echo "cross-deps: NOTE: $*; the jar will carry no linux-aarch64 library" >&2; exit 0; }

if dpkg -s libstd-rust-web-dev:arm64 >/dev/null 2>&1 && dpkg -s rustc-web >/dev/null 2>&1; then
  exit 0
fi
[[ "$(uname -m)" == x86_64 ]] || note "not an x86_64 machine"
command -v apt-get >/dev/null && command -v dpkg >/dev/null || note "no apt-get (not Debian)"
[[ $(id -u) -eq 0 ]] || note "not root (run: sudo $0)"
grep -qs 'VERSION_CODENAME=bookworm' /etc/os-release || note "rustc-web's aarch64 library is set up for Debian 12 only"

echo "cross-deps: installing rustc-web and libstd-rust-web-dev:arm64 from the Debian archive" >&2
dpkg --add-architecture arm64 || note "dpkg --add-architecture arm64 failed"
apt-get update -qq >/dev/null 2>&1 || note "apt-get update failed"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  rustc-web libstd-rust-web-dev:arm64 >/dev/null 2>&1 || note "apt-get install rustc-web libstd-rust-web-dev:arm64 failed"
echo "cross-deps: $(/usr/bin/rustc --version) with the aarch64-unknown-linux-gnu standard library" >&2
