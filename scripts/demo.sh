#!/usr/bin/env bash
# The demo: WordCount on a 4-node cluster with one node slowed 6x, under Hadoop's stock
# speculation and under rein, interleaved, 3 repetitions each; every output checked word by word.
# Where cgroups work it runs on the multi-process cluster of scripts/cluster.sh (rein installed as
# the README's install section says, jobs submitted with the examples jar's command line); else on
# an embedded MiniMRYarnCluster, and says why. Per policy: median job time (min-max), copies, waste,
# and the speed-up over stock; target/demo/summary.json has one row per run, target/demo/<run>/ its
# job history, AM log and client output.
#   scripts/demo.sh [--bed cluster|embedded] [--reps N] [--policies auto,late] [--slow FRACTION]  (default policies: auto)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

echo "== building rein (cargo + maven, tests skipped)" >&2
mvn_quiet install -DskipTests
mvn_quiet -pl mini-cluster dependency:build-classpath -Dmdep.outputFile=target/classpath.txt

opens=$(sed -n 's:.*<rein.jdk17.opens>\(.*\)</rein.jdk17.opens>.*:\1:p' pom.xml)
rm -rf target/demo target/test/data/rein-demo
mkdir -p target/demo
echo "== running the demo (about 8 minutes; Hadoop's own logs: target/demo/harness.log)" >&2
set +e
# shellcheck disable=SC2086
java $opens -cp "mini-cluster/target/classes:java/target/classes:$(cat mini-cluster/target/classpath.txt)" \
  io.rein.minicluster.Demo target/demo "$@" 2> >(tee target/demo/harness.log | grep --line-buffered -E '^\[demo\]|^\[cluster\]|^Exception in|^demo:' >&2)
rc=$?
set -e
wait
echo "summary: target/demo/summary.json" >&2
exit $rc
