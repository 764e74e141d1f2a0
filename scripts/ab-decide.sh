#!/usr/bin/env bash
# The engine's first decision at 100K running tasks, measured alternated between two commits: what
# the README's "Overhead" and the rounds in docs/OVERHEAD-HISTORY.md call an alternated run.
# Builds `profile_decide` at each commit (in a git worktree under target/ab/), then for every case
# runs the two binaries in turn, RUNS times each, 30 decisions a run, thread CPU time, memory
# kept; prints each run's median and least and, per side, their ranges. Machine noise moves both
# sides alike; compare within a case.
#   scripts/ab-decide.sh BASE [HEAD] [--runs N] [CASE ...]
#   CASE: POLICY:MODE[:FREE] as profile_decide takes them, e.g. mantri:first:10000 (room for 10K
#   copies), auto:first (room for a copy of every task, rein.max-copies-per-scan at its default),
#   auto:unbounded (the same with no bound on a decision's copies), late:healthy (a healthy job's
#   scan). Default cases: every policy with room for 10K, with room for every copy (bounded and
#   not), and healthy.
#   HEAD defaults to the working tree's HEAD commit.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
command -v cargo >/dev/null || { echo "error: cargo is not on PATH" >&2; exit 1; }

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
[ $# -ge 1 ] || usage 1
case "$1" in -h|--help) usage 0 ;; esac
base=$1; shift
head=HEAD
if [ $# -gt 0 ] && [[ "$1" != --* ]] && [[ "$1" != *:* ]]; then
  head=$1; shift
fi
runs=4
cases=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    *:*) cases+=("$1"); shift ;;
    *) echo "error: unknown argument '$1' (a case is POLICY:MODE[:FREE])" >&2; exit 2 ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "error: --runs must be a positive number, not '$runs'" >&2; exit 2; }
if [ ${#cases[@]} -eq 0 ]; then
  for mode in first:10000 first unbounded healthy; do
    for p in mantri auto dolly sca ese late; do cases+=("$p:$mode"); done
  done
fi

# One binary per commit, each built in its own worktree and target directory.
build() {
  local rev=$1 sha dir
  sha=$(git rev-parse --verify -q "$rev^{commit}") || { echo "error: '$rev' is not a commit" >&2; exit 2; }
  dir="target/ab/$sha"
  if [ ! -x "$dir/profile_decide" ]; then
    echo "building profile_decide at $rev ($sha)" >&2
    rm -rf "$dir/src"
    git worktree prune
    git worktree add --detach -f "$dir/src" "$sha" >/dev/null
    (cd "$dir/src" && CARGO_TARGET_DIR="$PWD/../target" cargo build --release --locked -q -p rein-bench --example profile_decide)
    cp "$dir/target/release/examples/profile_decide" "$dir/profile_decide"
    git worktree remove --force "$dir/src"
  fi
  echo "$dir/profile_decide"
}
bin_a=$(build "$base")
bin_b=$(build "$head")

# Freed memory kept for reuse: a decision's figure is its work, not its page faults (see
# profile_decide's doc comment).
export GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=2147483647
export REIN_PROFILE_KEEP_HEAP=1

one() { # BIN POLICY MODE [FREE] -> "median min"
  local out figure
  out=$("$1" "$2" 100000 30 "$3" ${4:-} 2>&1) || {
    echo "error: profile_decide $2 100000 30 $3 ${4:-} failed: $(grep -A1 -m1 'panicked' <<< "$out" | tail -1)" >&2
    exit 1
  }
  figure=$(grep -o 'decide ms median [0-9.]* min [0-9.]*' <<< "$out" | head -1 | awk '{print $4, $6}')
  [ -n "$figure" ] || { echo "error: profile_decide $2 $3 ${4:-} printed no figure: $(tail -1 <<< "$out")" >&2; exit 1; }
  echo "$figure"
}
range() { sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%s-%s", lo, hi}'; }

echo "alternated: $base (A) against $head (B), $runs runs a side of 30 decisions, ms: each run's median/least"
for c in "${cases[@]}"; do
  IFS=: read -r policy mode free <<< "$c"
  a=(); b=()
  for ((r = 0; r < runs; r++)); do
    a+=("$(one "$bin_a" "$policy" "$mode" "$free")")
    b+=("$(one "$bin_b" "$policy" "$mode" "$free")")
  done
  for side in A B; do
    if [ $side = A ]; then rows=("${a[@]}"); else rows=("${b[@]}"); fi
    medians=$(printf '%s\n' "${rows[@]}" | awk '{print $1}' | range)
    leasts=$(printf '%s\n' "${rows[@]}" | awk '{print $2}' | range)
    printf '%-20s %s  %s / %s   (%s)\n' "$c" "$side" "$medians" "$leasts" "$(printf '%s ' "${rows[@]}" | sed 's/ \([0-9.]*\) /\/\1 /g')"
  done
done
