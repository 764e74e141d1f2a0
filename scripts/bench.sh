#!/usr/bin/env bash
# The A/B benchmark: Hadoop's Sort, Grep, WordCount (and, on the embedded bed, a node-factor sleep
# job) under none, stock speculation and rein's policies, interleaved, in straggler scenarios. On
# the cluster bed (default where cgroups work: scripts/cluster.sh's separate daemons, a CPU cgroup
# per node) or the embedded one (--bed embedded: a MiniMRYarnCluster).
# Report: target/bench/{results.json,summary.md,*.svg}, job histories in jhist/, AM logs in amlogs/.
#   scripts/bench.sh --quick            # four scenarios, every policy: about 1 h 50 min on 2 cores
#   scripts/bench.sh                    # everything, 3 reps (hours; see README)
#   scripts/bench.sh --help             # all options
#   scripts/bench.sh --overhead         # rein's own cost, no cluster: target/bench/overhead.json
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

if [[ " $* " == *" --overhead "* ]]; then
  # rein's overhead, measured without a cluster: the engine's `decide` per policy at 1K, 10K and
  # 100K running tasks (Criterion, 10 samples each, thread CPU time) — the first decision on a job
  # whose running tasks are all late (decide_ms) and the scan of one where none is, as an AM makes
  # it every second (decide_healthy_ms) — and one rein scan against
  # one DefaultSpeculator.computeSpeculations() on the same job state (ScanBench, --rounds rounds,
  # thread CPU time), and a progress report through each one's handle() (rein_report_ns,
  # default_report_ns). Writes target/bench/overhead.json: per policy and size the medians with
  # _min/_max beside them (README, "Overhead"), the first decision also under two fixed allocator
  # settings (decide_kept_ms, decide_fresh_ms) and, memory kept, with the caller reporting room
  # for a tenth as many copies as tasks running (decide_room_ms) and with no bound on a decision's
  # copies (rein.max-copies-per-scan=0, decide_unbounded_ms); then what the all-late job's first decision costs
  # across JNI, with and without rein.log.copies-per-scan, and with the decision log on as an
  # ApplicationMaster has it, its records taken too (BurstBench: target/bench/burst.txt); and a
  # whole job's events and decisions, 200K maps 100K at a time, for every policy, three runs each
  # and a line over their 72 decisions together (job_stream: target/bench/job-stream.txt), its
  # events one by one, then the same with the events handed over 64 at a time, as the shim sends
  # them (target/bench/job-stream-batched.txt). Options: --rounds N (5), --sizes a,b,c.
  rounds=5
  sizes=1000,10000,100000
  args=("$@")
  for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[$i]}" in
      --rounds) rounds="${args[$((i + 1))]}" ;;
      --sizes) sizes="${args[$((i + 1))]}" ;;
    esac
  done
  target="${CARGO_TARGET_DIR:-target}"
  mkdir -p target/bench
  sizes_re="($(echo "$sizes" | tr , '|'))\$"
  # Every figure of the JSON from this run: no sample left by an earlier run with other sizes.
  rm -rf "$target"/criterion/decide_*
  echo "== decide and ingest (cargo bench -p rein-bench --bench engine)" >&2
  cargo bench --locked -p rein-bench --bench engine -- "decide(_healthy)?/[a-z]+/$sizes_re|ingest" 2>&1 \
    | grep -E '^(decide|ingest)|time:' >&2
  # The first decision again under two fixed allocator settings (rust/bench/benches/engine.rs,
  # HEAPS, which checks them): freed memory kept for reuse (the work alone), and every block of
  # 128 KB or more new memory (each page faulting on first touch). With glibc's defaults the
  # figure above moves by a factor of two from run to run with the heap a fresh engine is handed.
  for heap in kept fresh; do
    case $heap in
      kept) tunables=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=2147483647 ;;
      fresh) tunables=glibc.malloc.mmap_threshold=131072 ;;
    esac
    echo "== the first decision, memory $heap (GLIBC_TUNABLES=$tunables)" >&2
    # With memory kept, also the first decision with room for a tenth as many copies as tasks
    # running (decide_room_ms: the caller reports that many free slots, a cluster's headroom) and
    # with no bound on its copies (decide_unbounded_ms: rein.max-copies-per-scan=0). Each group
    # in a process of its own: run after another group in one process, a decision met the heap
    # that group had left (`auto`'s unbounded decision took 8.7 ms where alone it took 5.8,
    # Mantri's with room for 10K 2.73 where alone 1.61).
    groups=$heap
    [[ $heap == kept ]] && groups="kept room unbounded"
    for group in $groups; do
      [[ $group != "$heap" ]] && echo "== the first decision, memory $heap: group decide_$group" >&2
      GLIBC_TUNABLES=$tunables REIN_BENCH_HEAP=$heap cargo bench --locked -p rein-bench --bench engine -- \
        "decide_$group/[a-z]+/$sizes_re" 2>&1 | grep -E '^decide|time:|panicked|REIN_BENCH' >&2
    done
  done
  echo "== building rein-yarn's classes and test classes (mvn -pl java test-compile)" >&2
  # shellcheck disable=SC2086
  mvn_quiet -pl java ${REIN_MVN_ARGS:-} test-compile
  # shellcheck disable=SC2086
  mvn_quiet -pl java ${REIN_MVN_ARGS:-} dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$PWD/target/bench/scanbench-classpath.txt" >/dev/null
  echo "== rein's scan against DefaultSpeculator's (ScanBench, $rounds rounds, sizes $sizes)" >&2
  java -Xmx8g -cp "java/target/classes:java/target/test-classes:$(cat target/bench/scanbench-classpath.txt)" \
    io.rein.yarn.ScanBench "$sizes" "$rounds" --criterion "$target/criterion" --json target/bench/overhead.json \
    2> >(grep -v -E '^(SLF4J|log4j)' >&2)
  wait
  echo "== a burst across JNI: the first decision on the all-late job at 100K (BurstBench, $rounds rounds)" >&2
  java -Xmx8g -cp "java/target/classes:java/target/test-classes:$(cat target/bench/scanbench-classpath.txt)" \
    io.rein.yarn.BurstBench 100000 "$rounds" 2> >(grep -v -E '^(SLF4J|log4j)' >&2) | tee target/bench/burst.txt
  wait
  echo "== a whole job through the engine: 200K maps, 100K running, memory kept, 3 runs (job_stream)" >&2
  cargo build --quiet --locked --release -p rein-bench --example job_stream
  # Events one by one (REIN_STREAM_BATCH=1), then in the shim's batches of 64.
  for batch in 1 64; do
    stream=target/bench/job-stream.txt
    if [ "$batch" != 1 ]; then
      stream=target/bench/job-stream-batched.txt
      echo "== the same, the events in the shim's batches of $batch (REIN_STREAM_BATCH=$batch)" >&2
    fi
    : >"$stream"
    for policy in auto late mantri dolly sca ese hadoop; do
      REIN_STREAM_BATCH=$batch GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=2147483647 \
        "$target/release/examples/job_stream" "$policy" 200000 100000 off 3 | tee -a "$stream"
    done
  done
  exit 0
fi

if [[ " $* " != *" --help "* && " $* " != *" -h "* ]]; then
  echo "== building rein (cargo + maven, tests skipped)" >&2
  mvn_quiet install -DskipTests
  mvn_quiet -pl mini-cluster dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
fi
out=target/bench
for ((i = 1; i <= $#; i++)); do
  if [[ "${!i}" == "--out" ]]; then j=$((i + 1)); out="${!j}"; fi
done
mkdir -p "$out"
opens=$(sed -n 's:.*<rein.jdk17.opens>\(.*\)</rein.jdk17.opens>.*:\1:p' pom.xml)
# Hadoop's own logging goes to $out/cluster.log; progress lines ([bench]) to the terminal.
set +e
# shellcheck disable=SC2086
java $opens -Xmx2g -cp "mini-cluster/target/classes:java/target/classes:$(cat mini-cluster/target/classpath.txt 2>/dev/null)" \
  io.rein.minicluster.Bench "$@" 2> >(tee "$out/cluster.log" | grep --line-buffered -E '^\[bench\]|^\[cluster\]|^bench:|^usage|^  --|^Exception in' >&2)
rc=$?
set -e
wait
exit $rc
