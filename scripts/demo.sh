#!/usr/bin/env bash
# The demo: an embedded YARN cluster with one NodeManager slowed 6x runs Hadoop's WordCount
# under stock speculation and under rein (LATE), verifies both outputs and prints them side by
# side. The same numbers go to target/demo/summary.json.
#   scripts/demo.sh [SLOW_FACTOR]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
factor="${1:-6}"

echo "== building rein (cargo + maven, tests skipped)" >&2
mvn -B -q -ntp install -DskipTests
mvn -B -q -ntp -pl mini-cluster dependency:build-classpath -Dmdep.outputFile=target/classpath.txt

opens=$(sed -n 's:.*<rein.jdk17.opens>\(.*\)</rein.jdk17.opens>.*:\1:p' pom.xml)
rm -rf target/demo target/test/data/rein-demo
mkdir -p target/demo
echo "== starting the embedded cluster and running the jobs (a few minutes)" >&2
# shellcheck disable=SC2086
java $opens -cp "mini-cluster/target/classes:java/target/classes:$(cat mini-cluster/target/classpath.txt)" \
  io.rein.minicluster.Demo target/demo "$factor" 2> >(grep -E '^\[demo\]|^Exception in' >&2)
echo "summary: target/demo/summary.json" >&2
