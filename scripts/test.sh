#!/usr/bin/env bash
# Every test of rein: the Rust workspace, the Java shim's unit tests, and the integration tests
# that run real jobs on an embedded MiniMRYarnCluster. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

echo "== cargo test (rein-core, rein-jni, rein-sim)"
# rein-bench holds only Criterion benchmarks (scripts/bench.sh --overhead runs them); leaving it
# out keeps Criterion out of the suite's build.
cargo test --locked --workspace --exclude rein-bench

echo "== the aarch64 toolchain, best effort (scripts/cross-deps.sh: Debian's rustc-web and its arm64 std)"
bash scripts/cross-deps.sh

echo "== maven verify (builds librein for each platform, bundles it, runs the shim and cluster tests)"
mvn -B -ntp verify

echo "== all tests passed"
