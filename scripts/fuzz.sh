#!/usr/bin/env bash
# Fuzzes the engine's event stream: the property tests of rust/core/tests/properties.rs with many
# more random streams than the test suite runs, for every policy, in a release build and bounded
# in time. Invariants: no panic, no action on a finished task, copies only of running tasks,
# kills only of running attempts, clones within free slots, caps respected.
#   scripts/fuzz.sh [CASES] [SECONDS]      (defaults: 20000 cases, 900 s)
# A failing stream is shrunk and saved under rust/core/proptest-regressions/ and replayed by
# every later run of the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
cases="${1:-20000}"
limit="${2:-900}"
echo "== fuzzing the engine: $cases streams per property, at most ${limit}s" >&2
REIN_FUZZ_CASES="$cases" timeout "$limit" cargo test --release --locked -p rein-core --test properties
