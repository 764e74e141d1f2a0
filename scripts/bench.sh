#!/usr/bin/env bash
# The A/B benchmark: Hadoop's Sort, Grep, WordCount (and, on the embedded bed, a node-factor sleep
# job) under none, stock speculation and rein's policies, interleaved, in straggler scenarios. On
# the cluster bed (default where cgroups work: scripts/cluster.sh's separate daemons, a CPU cgroup
# per node) or the embedded one (--bed embedded: a MiniMRYarnCluster).
# Report: target/bench/{results.json,summary.md,*.svg}, job histories in jhist/, AM logs in amlogs/.
#   scripts/bench.sh --quick            # about 25 min on 2 cores
#   scripts/bench.sh                    # everything, 3 reps (hours; see README)
#   scripts/bench.sh --help             # all options
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

if [[ " $* " != *" --help "* && " $* " != *" -h "* ]]; then
  echo "== building rein (cargo + maven, tests skipped)" >&2
  mvn -B -q -ntp -Dstyle.color=never install -DskipTests
  mvn -B -q -ntp -Dstyle.color=never -pl mini-cluster dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
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
