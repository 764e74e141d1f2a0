#!/usr/bin/env bash
# Hadoop's own speculation tests, unmodified from the published test jars, run once per policy
# with rein as the AM's speculator (module compat/). Writes target/compat/summary.md: test ->
# pass/FAIL per policy, with a "stock" column (Hadoop's DefaultSpeculator) for reference.
#   scripts/compat.sh                     # stock, hadoop, late, mantri, dolly, sca, ese
#   scripts/compat.sh hadoop late         # only these (add "stock" for the reference column)
#   scripts/compat.sh --cluster ...       # also the MiniMRYarnCluster tests (long; see README)
# MVN_FLAGS is passed to every mvn call (e.g. MVN_FLAGS=-o to stay offline, or
# MVN_FLAGS=-Dhadoop.version=3.4.2 to test against another Hadoop; that installs rein-yarn built
# against it into ~/.m2, so reinstall afterwards: mvn install -DskipTests -pl java -am).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

cluster=false
policies=()
for arg in "$@"; do
  case "$arg" in
    --cluster) cluster=true ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    -*) echo "compat.sh: unknown option $arg" >&2; exit 2 ;;
    *) policies+=("$arg") ;;
  esac
done
[[ ${#policies[@]} -gt 0 ]] || policies=(stock hadoop late mantri dolly sca ese)

# The Hadoop version tested: -Dhadoop.version in MVN_FLAGS (e.g. 3.4.2), else the pom's.
hadoop_version=$(sed -n 's/.*-Dhadoop\.version=\([^ ]*\).*/\1/p' <<< "${MVN_FLAGS:-}")
[[ -n "$hadoop_version" ]] || hadoop_version=$(sed -n 's:.*<hadoop.version>\(.*\)</hadoop.version>.*:\1:p' pom.xml)

out=target/compat
mkdir -p "$out"
reports=compat/target/surefire-reports
# shellcheck disable=SC2086
read -r -a mvn_flags <<< "${MVN_FLAGS:-}"

echo "== building rein-yarn (cargo + maven, tests skipped)" >&2
mvn -B -q -ntp "${mvn_flags[@]}" install -DskipTests -pl java -am

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
  echo "Hadoop $hadoop_version, test jars from Maven Central, unmodified;"
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
