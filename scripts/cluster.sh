#!/usr/bin/env bash
# A pseudo-distributed Hadoop cluster of separate processes on this machine: a NameNode, a
# ResourceManager and a JobHistoryServer, and per node a DataNode and a NodeManager on the node's
# own loopback address (127.0.1.N) in the node's own CPU cgroup, so a node's tasks share only that
# node's CPU, as on a machine of its own. Hadoop is the project's version from Maven Central, laid
# out as a distribution under target/cluster/hadoop. See the README's "The cluster bed".
#
#   scripts/cluster.sh up [--nodes N] [--slots S] [--cpus C] [--no-cgroups]   start; waits until ready
#   scripts/cluster.sh down                       stop every process it started, remove its cgroups
#   scripts/cluster.sh status                     daemons, NodeManagers, DataNodes, web UIs
#   scripts/cluster.sh run jar JAR ARGS...        a client command ("hadoop jar"); also: fs, job, class
#   scripts/cluster.sh slow N FRACTION            node N gets FRACTION of its CPU share (1 = healthy)
#   scripts/cluster.sh disk N BYTES_PER_S         throttle node N's disk reads and writes (0 = off)
#   scripts/cluster.sh kill-node N                a machine failing: kill node N's processes
#   scripts/cluster.sh install-rein JAR [--route lib|classpath]   install rein as the README says
#   scripts/cluster.sh uninstall-rein             remove it again
#
# Environment: REIN_CLUSTER_DIR (default target/cluster), REIN_CLUSTER_PORT_BASE (default 20000).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/env.sh"

C="$(mkdir -p "${REIN_CLUSTER_DIR:-$root/target/cluster}" && cd "${REIN_CLUSTER_DIR:-$root/target/cluster}" && pwd)"
H="$C/hadoop"
ETC="$C/etc/hadoop"
STATE="$C/state.env"
PIDS="$C/pids"
BASE="${REIN_CLUSTER_PORT_BASE:-20000}"
CG_CPU=/sys/fs/cgroup/cpu
CG_BLKIO=/sys/fs/cgroup/blkio
CG_NAME="rein-$(printf %s "$C" | cksum | cut -d' ' -f1)"
# Every JVM of the cluster: a small heap's collector and the client compiler only, which halves a
# JVM's start-up CPU; on nodes of half a core that is most of a minute-long task's cost.
JVM_OPTS="-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData"
OPENS=$(sed -n 's:.*<rein.jdk17.opens>\(.*\)</rein.jdk17.opens>.*:\1:p' "$root/pom.xml")

# Master ports (on 127.0.0.1) and per-node ports (on 127.0.1.N, offset by 100·N).
NN_RPC=$((BASE + 20)); NN_HTTP=$((BASE + 70))
RM_SCHED=$((BASE + 30)); RM_TRACKER=$((BASE + 31)); RM_ADDR=$((BASE + 32)); RM_ADMIN=$((BASE + 33))
RM_WEB=$((BASE + 88)); JHS_ADDR=$((BASE + 40)); JHS_ADMIN=$((BASE + 41)); JHS_WEB=$((BASE + 89))
node_ip() { echo "127.0.1.$1"; }
node_port() { echo $((BASE + 100 * $1 + $2)); }   # node, offset: 0 NM, 1 localizer, 2 web, 3 shuffle,
                                                 # 10 DN data, 11 DN http, 12 DN ipc

say() { echo "[cluster] $*" >&2; }
die() { echo "cluster.sh: $*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# The Hadoop distribution: every artifact of scripts/lib/hadoop-dist.pom.xml with its
# dependencies, sorted into share/hadoop/{common,common/lib,hdfs,yarn,mapreduce} by name.
dist() {
  [[ -f "$H/.ready" ]] && return 0
  say "laying out Hadoop $(hadoop_version) from Maven Central under $H (once)"
  rm -rf "$H" "$C/jars"
  mvn_quiet -f "$root/scripts/lib/hadoop-dist.pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$C/jars" -DincludeScope=runtime >&2 || die "could not fetch Hadoop's jars with Maven"
  local s="$H/share/hadoop"
  mkdir -p "$s/common/lib" "$s/hdfs" "$s/yarn" "$s/mapreduce/lib" "$H/etc/hadoop"
  local j base
  for j in "$C"/jars/*.jar; do
    base=$(basename "$j")
    case "$base" in
      hadoop-mapreduce-*) mv "$j" "$s/mapreduce/" ;;
      hadoop-yarn-*|hadoop-registry-*) mv "$j" "$s/yarn/" ;;
      hadoop-hdfs-*) mv "$j" "$s/hdfs/" ;;
      hadoop-common-*|hadoop-auth-*|hadoop-annotations-*|hadoop-kms-*|hadoop-nfs-*) mv "$j" "$s/common/" ;;
      *) mv "$j" "$s/common/lib/" ;;
    esac
  done
  rmdir "$C/jars"
  # The NameNode's and DataNode's web apps: a distribution ships them in share/hadoop/hdfs/webapps;
  # Maven Central has them only in hadoop-hdfs's test jar.
  mvn_quiet dependency:copy -Dartifact="org.apache.hadoop:hadoop-hdfs:$(hadoop_version):jar:tests" \
    -DoutputDirectory="$C/jars" >&2 || die "could not fetch hadoop-hdfs's web apps with Maven"
  python3 - "$C"/jars/hadoop-hdfs-*-tests.jar "$s/hdfs" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith("webapps/")])
PY
  rm -rf "$C/jars"
  ls "$s"/mapreduce/hadoop-mapreduce-examples-*.jar >/dev/null 2>&1 || die "no examples jar in $s/mapreduce"
  touch "$H/.ready"
}

hadoop_version() { sed -n 's:.*<hadoop.version>\(.*\)</hadoop.version>.*:\1:p' "$root/pom.xml"; }

# What `hadoop classpath` gives: the config dir, then every share/hadoop folder. rein is never on
# it (share/hadoop/mapreduce/lib, where a user may copy rein, is read by MapReduce containers only).
classpath() {
  local s="$H/share/hadoop"
  echo "$1:$s/common/*:$s/common/lib/*:$s/hdfs:$s/hdfs/*:$s/yarn/*:$s/mapreduce/*"
}

examples_jar() { ls "$H"/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar | head -1; }

# ---------------------------------------------------------------------------------------------
# Configuration. One cluster-wide set under etc/hadoop (clients, masters, and what containers
# read as HADOOP_CONF_DIR), and per node a copy whose yarn-site and hdfs-site name the node's
# own address and ports.
prop() { printf '  <property><name>%s</name><value>%s</value></property>\n' "$1" "$2"; }
xml() { echo '<?xml version="1.0"?>'; echo "<!-- written by scripts/cluster.sh -->"; echo '<configuration>'; cat; echo '</configuration>'; }

write_conf() {
  local dir="$1" node="${2:-}"
  mkdir -p "$dir"
  {
    prop fs.defaultFS "hdfs://127.0.0.1:$NN_RPC"
    prop hadoop.tmp.dir "$C/tmp"
    prop hadoop.security.authentication simple
  } | xml > "$dir/core-site.xml"
  {
    prop dfs.namenode.rpc-address "127.0.0.1:$NN_RPC"
    prop dfs.namenode.http-address "127.0.0.1:$NN_HTTP"
    prop dfs.namenode.name.dir "$C/master/dfs/name"
    # Two replicas: a lost node keeps every input readable; one would lose blocks with it.
    prop dfs.replication 2
    prop dfs.permissions.enabled false
    prop dfs.namenode.safemode.min.datanodes 0
    # DataNodes are told apart by their own addresses, not by the 127.0.0.1 they connect from.
    prop dfs.client.use.datanode.hostname true
    prop dfs.datanode.use.datanode.hostname true
    prop dfs.namenode.datanode.registration.ip-hostname-check false
    prop dfs.namenode.heartbeat.recheck-interval 10000
    prop dfs.heartbeat.interval 1
    if [[ -n "$node" ]]; then
      prop dfs.datanode.hostname "$(node_ip "$node")"
      prop dfs.datanode.address "$(node_ip "$node"):$(node_port "$node" 10)"
      prop dfs.datanode.http.address "$(node_ip "$node"):$(node_port "$node" 11)"
      prop dfs.datanode.ipc.address "$(node_ip "$node"):$(node_port "$node" 12)"
      prop dfs.datanode.data.dir "$C/nodes/n$node/dfs/data"
    fi
  } | xml > "$dir/hdfs-site.xml"
  {
    prop yarn.resourcemanager.hostname 127.0.0.1
    prop yarn.resourcemanager.address "127.0.0.1:$RM_ADDR"
    prop yarn.resourcemanager.scheduler.address "127.0.0.1:$RM_SCHED"
    prop yarn.resourcemanager.resource-tracker.address "127.0.0.1:$RM_TRACKER"
    prop yarn.resourcemanager.admin.address "127.0.0.1:$RM_ADMIN"
    prop yarn.resourcemanager.webapp.address "127.0.0.1:$RM_WEB"
    prop yarn.scheduler.minimum-allocation-mb 128
    prop yarn.scheduler.maximum-allocation-mb "$((SLOTS * 512))"
    # A node that stops heartbeating is declared lost after 10 s (Hadoop's default: 10 min).
    prop yarn.nm.liveness-monitor.expiry-interval-ms 10000
    prop yarn.resourcemanager.nm.liveness-monitor.interval-ms 1000
    # An AM launching a container on a node that has just died retries for this long before it
    # gives up and asks again elsewhere (Hadoop's default: 3 min, a retry every 10 s).
    prop yarn.client.nodemanager-connect.max-wait-ms 20000
    prop yarn.client.nodemanager-connect.retry-interval-ms 2000
    # Containers are handed out on NodeManager heartbeats: every 250 ms (default: every second).
    prop yarn.resourcemanager.nodemanagers.heartbeat-interval-ms 250
    prop yarn.nodemanager.aux-services mapreduce_shuffle
    prop yarn.nodemanager.aux-services.mapreduce_shuffle.class org.apache.hadoop.mapred.ShuffleHandler
    prop yarn.nodemanager.env-whitelist \
      JAVA_HOME,HADOOP_COMMON_HOME,HADOOP_HDFS_HOME,HADOOP_YARN_HOME,HADOOP_CONF_DIR,CLASSPATH_PREPEND_DISTCACHE,HADOOP_HOME,PATH,LANG,TZ,HADOOP_MAPRED_HOME
    prop yarn.nodemanager.resource.memory-mb "$((SLOTS * 512))"
    prop yarn.nodemanager.resource.cpu-vcores "$SLOTS"
    prop yarn.nodemanager.vmem-check-enabled false
    prop yarn.nodemanager.pmem-check-enabled false
    prop yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage 99
    prop yarn.log-aggregation-enable false
    if [[ -n "$node" ]]; then
      prop yarn.nodemanager.hostname "$(node_ip "$node")"
      prop yarn.nodemanager.address "$(node_ip "$node"):$(node_port "$node" 0)"
      prop yarn.nodemanager.localizer.address "$(node_ip "$node"):$(node_port "$node" 1)"
      prop yarn.nodemanager.webapp.address "$(node_ip "$node"):$(node_port "$node" 2)"
      prop yarn.nodemanager.local-dirs "$C/nodes/n$node/nm-local"
      prop yarn.nodemanager.log-dirs "$C/nodes/n$node/logs/userlogs"
    fi
  } | xml > "$dir/yarn-site.xml"
  {
    prop mapreduce.framework.name yarn
    prop mapreduce.jobhistory.address "127.0.0.1:$JHS_ADDR"
    prop mapreduce.jobhistory.admin.address "127.0.0.1:$JHS_ADMIN"
    prop mapreduce.jobhistory.webapp.address "127.0.0.1:$JHS_WEB"
    prop mapreduce.jobhistory.move.interval-ms 10000
    prop yarn.app.mapreduce.am.env "HADOOP_MAPRED_HOME=$H"
    prop mapreduce.map.env "HADOOP_MAPRED_HOME=$H"
    prop mapreduce.reduce.env "HADOOP_MAPRED_HOME=$H"
    # Containers of 512 MB: the AM and every task use one slot.
    prop yarn.app.mapreduce.am.resource.mb 512
    prop yarn.app.mapreduce.am.command-opts "-Xmx320m $JVM_OPTS"
    prop mapreduce.map.memory.mb 512
    prop mapreduce.reduce.memory.mb 512
    prop mapreduce.map.java.opts "-Xmx256m $JVM_OPTS"
    prop mapreduce.reduce.java.opts "-Xmx256m $JVM_OPTS"
    # Jobs here last a minute: tasks report progress every second (default: every 6 s).
    prop mapreduce.task.progress-report.interval 1000
    # The job client looks for the job's end every 250 ms (default: every 5 s), so a job's
    # measured time is the job's, not the poll's.
    prop mapreduce.client.completion.pollinterval 250
    # The shuffle server's port is read with mapred-default.xml loaded after yarn-site.xml, so it
    # must be set here to override the default.
    [[ -n "$node" ]] && prop mapreduce.shuffle.port "$(node_port "$node" 3)"
    cat "$C/rein-site.part" 2>/dev/null || true
  } | xml > "$dir/mapred-site.xml"
  cat > "$dir/capacity-scheduler.xml" <<EOF
<?xml version="1.0"?>
<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>default</value></property>
  <property><name>yarn.scheduler.capacity.root.default.capacity</name><value>100</value></property>
  <property><name>yarn.scheduler.capacity.root.default.maximum-capacity</name><value>100</value></property>
  <property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name><value>0.5</value></property>
  <property><name>yarn.scheduler.capacity.node-locality-delay</name><value>-1</value></property>
</configuration>
EOF
  cat > "$dir/log4j.properties" <<'EOF'
hadoop.root.logger=INFO,console
hadoop.log.dir=.
hadoop.log.file=hadoop.log
log4j.rootLogger=${hadoop.root.logger}
log4j.threshold=ALL
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.target=System.err
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
log4j.appender.RFA=org.apache.log4j.FileAppender
log4j.appender.RFA.File=${hadoop.log.dir}/${hadoop.log.file}
log4j.appender.RFA.layout=org.apache.log4j.PatternLayout
log4j.appender.RFA.layout.ConversionPattern=%d{ISO8601} %p %c: %m%n
log4j.logger.org.apache.hadoop.util.NativeCodeLoader=ERROR
EOF
}

# rein's keys for mapred-site.xml (the cluster-wide route), as in hadoop-conf/mapred-site.xml.
write_rein_conf() {
  local route="$1" jar_path="$2"
  {
    prop yarn.app.mapreduce.am.job.speculator.class io.rein.yarn.ReinSpeculator
    if [[ "$route" == classpath ]]; then
      # Appended to Hadoop's default value, never instead of it.
      prop mapreduce.application.classpath \
        "\$HADOOP_MAPRED_HOME/share/hadoop/mapreduce/*,\$HADOOP_MAPRED_HOME/share/hadoop/mapreduce/lib/*,$jar_path"
    fi
  } > "$C/rein-site.part"
}

rewrite_all_conf() {
  write_conf "$ETC"
  local n
  for ((n = 1; n <= NODES; n++)); do write_conf "$C/nodes/n$n/etc/hadoop" "$n"; done
}

# ---------------------------------------------------------------------------------------------
# cgroups: one CPU group (and blkio group) per node under $CG_CPU/$CG_NAME.
cgroups_usable() {
  [[ -d "$CG_CPU" && -w "$CG_CPU" ]] || return 1
  mkdir -p "$CG_CPU/$CG_NAME" 2>/dev/null || return 1
  [[ -w "$CG_CPU/$CG_NAME/cpu.cfs_quota_us" ]]
}

node_quota_us() { # node fraction → quota per 100 ms period
  python3 -c "import sys; print(max(1000, int(float(sys.argv[1]) / float(sys.argv[2]) * float(sys.argv[3]) * 100000)))" \
    "$CPUS" "$NODES" "$2"
}

set_cpu() {
  local n="$1" fraction="$2"
  local g="$CG_CPU/$CG_NAME/n$n"
  echo 100000 > "$g/cpu.cfs_period_us"
  local quota
  quota=$(node_quota_us "$n" "$fraction")
  echo "$quota" > "$g/cpu.cfs_quota_us"
  echo "$fraction" > "$C/nodes/n$n/cpu-fraction"
}

block_device() { # MAJ:MIN of the block device holding the cluster dir, if it is a real disk
  local dev
  dev=$(findmnt -n -o SOURCE -T "$C" 2>/dev/null || true)
  [[ "$dev" == /dev/* && -b "$dev" ]] || return 1
  printf '%d:%d' "0x$(stat -L -c %t "$dev")" "0x$(stat -L -c %T "$dev")"
}

make_node_cgroups() {
  local n
  for ((n = 1; n <= NODES; n++)); do
    mkdir -p "$CG_CPU/$CG_NAME/n$n"
    # No quota while the daemons start (JVM start-up is CPU-heavy); each node gets its share once up.
    echo -1 > "$CG_CPU/$CG_NAME/n$n/cpu.cfs_quota_us"
    if [[ -d "$CG_BLKIO" && -w "$CG_BLKIO" ]]; then mkdir -p "$CG_BLKIO/$CG_NAME/n$n" 2>/dev/null || true; fi
  done
}

remove_cgroups() {
  local g p
  for g in "$CG_CPU/$CG_NAME" "$CG_BLKIO/$CG_NAME"; do
    [[ -d "$g" ]] || continue
    for p in "$g"/n*/; do
      [[ -d "$p" ]] || continue
      rmdir "$p" 2>/dev/null || say "WARN: could not remove cgroup $p (processes left: $(tr '\n' ' ' < "$p/cgroup.procs"))"
    done
    rmdir "$g" 2>/dev/null || true
  done
}

# ---------------------------------------------------------------------------------------------
# Daemons. Each starts as `java -cp <conf>:<jars> <main>`; a node's daemons first move themselves
# into the node's cgroups, so every container their NodeManager forks inherits them.
start_daemon() { # name node-or-empty conf-dir heap main [args...]
  local name="$1" node="$2" conf="$3" heap="$4"; shift 4
  local logs="$C/logs"
  [[ -n "$node" ]] && logs="$C/nodes/n$node/logs"
  mkdir -p "$logs" "$PIDS"
  (
    if [[ -n "$node" && "$INJECTOR" == cgroup ]]; then
      echo "$BASHPID" > "$CG_CPU/$CG_NAME/n$node/cgroup.procs"
      [[ -d "$CG_BLKIO/$CG_NAME/n$node" ]] && echo "$BASHPID" > "$CG_BLKIO/$CG_NAME/n$node/cgroup.procs"
    fi
    export HADOOP_HOME="$H" HADOOP_COMMON_HOME="$H" HADOOP_HDFS_HOME="$H" HADOOP_YARN_HOME="$H" \
      HADOOP_MAPRED_HOME="$H" HADOOP_CONF_DIR="$conf" HADOOP_LOG_DIR="$logs" YARN_LOG_DIR="$logs"
    # shellcheck disable=SC2086
    exec "$JAVA_HOME/bin/java" -Xmx"$heap" $JVM_OPTS $OPENS \
      -Dproc_"$name" -Dhadoop.log.dir="$logs" -Dhadoop.log.file="$name.log" -Dyarn.log.dir="$logs" \
      -Dyarn.log.file="$name.log" -Dhadoop.home.dir="$H" -Dhadoop.root.logger=INFO,RFA \
      -cp "$(classpath "$conf")" "$@" </dev/null >"$logs/$name.out" 2>&1
  ) &
  echo $! > "$PIDS/$name.pid"
}

alive() { [[ -f "$PIDS/$1.pid" ]] && kill -0 "$(cat "$PIDS/$1.pid")" 2>/dev/null; }

client() { # main [args...]: a client JVM with the cluster-wide configuration
  local main="$1"; shift
  # shellcheck disable=SC2086
  HADOOP_HOME="$H" HADOOP_CONF_DIR="$ETC" HADOOP_MAPRED_HOME="$H" \
    ${CLIENT_EXEC:+exec} "$JAVA_HOME/bin/java" -Xmx512m $JVM_OPTS $OPENS -Dhadoop.home.dir="$H" \
    -Dhadoop.root.logger="${REIN_CLIENT_LOGGER:-INFO,console}" -cp "$(classpath "$ETC")${REIN_CLIENT_CP:+:$REIN_CLIENT_CP}" \
    "$main" "$@"
}

http_get() { curl -fsS --max-time 5 "$1" 2>/dev/null; }
live_datanodes() { http_get "http://127.0.0.1:$NN_HTTP/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["beans"][0]["NumLiveDataNodes"])' 2>/dev/null || echo 0; }
running_nms() { http_get "http://127.0.0.1:$RM_WEB/ws/v1/cluster/nodes?states=RUNNING" \
  | python3 -c 'import json,sys; n=(json.load(sys.stdin).get("nodes") or {}).get("node",[]); print(len(n))' 2>/dev/null || echo 0; }
safemode_off() { http_get "http://127.0.0.1:$NN_HTTP/jmx?qry=Hadoop:service=NameNode,name=NameNodeInfo" \
  | python3 -c 'import json,sys; print("yes" if json.load(sys.stdin)["beans"][0]["Safemode"]=="" else "no")' 2>/dev/null | grep -q yes; }

enough() { [[ $("$1") -ge $NODES ]]; }   # a counting function reaches the number of nodes

wait_for() { # what seconds command...
  local what="$1" limit="$2" t=0; shift 2
  until "$@"; do
    sleep 1; t=$((t + 1))
    if ((t >= limit)); then say "gave up waiting for $what after ${limit}s; logs: $C/logs, $C/nodes/n*/logs"; return 1; fi
    check_daemons_alive || return 1
  done
}

check_daemons_alive() {
  local f name
  for f in "$PIDS"/*.pid; do
    [[ -f "$f" ]] || continue
    name=$(basename "$f" .pid)
    [[ "$name" == slow-* ]] && continue
    if ! kill -0 "$(cat "$f")" 2>/dev/null && [[ ! -f "$C/nodes/lost-$name" ]]; then
      say "$name exited; last lines of its log:"
      tail -n 20 "$(log_of "$name")" >&2 || true
      return 1
    fi
  done
}

log_of() { # daemon name → its log file
  case "$1" in
    nm*|dn*) echo "$C/nodes/n${1#??}/logs/$1.log" ;;
    *) echo "$C/logs/$1.log" ;;
  esac
}

load_state() {
  [[ -f "$STATE" ]] || die "no cluster here ($C); start one with: scripts/cluster.sh up"
  # shellcheck disable=SC1090
  source "$STATE"
}

# ---------------------------------------------------------------------------------------------
cmd_up() {
  NODES=4; SLOTS=2; CPUS=$(nproc); local cgroups=true
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --nodes) NODES="$2"; shift 2 ;;
      --slots) SLOTS="$2"; shift 2 ;;
      --cpus) CPUS="$2"; shift 2 ;;
      --no-cgroups) cgroups=false; shift ;;
      *) die "up: unknown option $1 (see scripts/cluster.sh --help)" ;;
    esac
  done
  [[ "$NODES" =~ ^[1-9][0-9]?$ && "$NODES" -le 50 ]] || die "--nodes must be 1..50: $NODES"
  [[ "$SLOTS" =~ ^[1-9][0-9]?$ ]] || die "--slots must be 1..99: $SLOTS"
  python3 -c "import sys; assert 0 < float(sys.argv[1]) <= 1024" "$CPUS" 2>/dev/null || die "--cpus must be a number in (0, 1024]: $CPUS"
  if [[ -d "$PIDS" ]] && ls "$PIDS"/*.pid >/dev/null 2>&1; then
    local f
    for f in "$PIDS"/*.pid; do
      kill -0 "$(cat "$f")" 2>/dev/null && die "a cluster is already running from $C ($(basename "$f" .pid) pid $(cat "$f")); run: scripts/cluster.sh down"
    done
    rm -f "$PIDS"/*.pid
  fi
  INJECTOR=sigstop
  if $cgroups && cgroups_usable; then
    INJECTOR=cgroup
  elif $cgroups; then
    say "WARNING: cgroup v1 cpu controller at $CG_CPU is not writable here: nodes share the whole machine's"
    say "WARNING: CPU, and slow nodes fall back to the SIGSTOP duty-cycle injector (every result records it)"
  else
    say "cgroups off (--no-cgroups): nodes share the machine's CPU; slow nodes use the SIGSTOP injector"
  fi
  local t0=$SECONDS
  dist
  rm -rf "$C/master" "$C/nodes" "$C/logs" "$C/tmp" "$ETC"
  mkdir -p "$C/master" "$C/logs"
  {
    echo "NODES=$NODES"; echo "SLOTS=$SLOTS"; echo "CPUS=$CPUS"; echo "INJECTOR=$INJECTOR"
  } > "$STATE"
  rewrite_all_conf
  [[ "$INJECTOR" == cgroup ]] && make_node_cgroups
  trap 'say "start-up failed; stopping what started"; cmd_down >/dev/null 2>&1 || true' ERR

  say "formatting HDFS"
  HADOOP_HOME="$H" "$JAVA_HOME/bin/java" -Xmx256m $OPENS -Dhadoop.root.logger=WARN,console \
    -cp "$(classpath "$ETC")" org.apache.hadoop.hdfs.server.namenode.NameNode -format -nonInteractive -force \
    > "$C/logs/format.out" 2>&1 || { tail -20 "$C/logs/format.out" >&2; die "NameNode -format failed"; }
  say "starting NameNode, ResourceManager and JobHistoryServer on 127.0.0.1; $NODES nodes (127.0.1.1-$NODES)"
  start_daemon nn "" "$ETC" 512m org.apache.hadoop.hdfs.server.namenode.NameNode
  start_daemon rm "" "$ETC" 768m org.apache.hadoop.yarn.server.resourcemanager.ResourceManager
  local n
  for ((n = 1; n <= NODES; n++)); do
    start_daemon "dn$n" "$n" "$C/nodes/n$n/etc/hadoop" 256m org.apache.hadoop.hdfs.server.datanode.DataNode
    start_daemon "nm$n" "$n" "$C/nodes/n$n/etc/hadoop" 384m org.apache.hadoop.yarn.server.nodemanager.NodeManager
  done
  wait_for "$NODES live DataNodes" 180 enough live_datanodes
  wait_for "HDFS to leave safe mode" 120 safemode_off
  client org.apache.hadoop.fs.FsShell -mkdir -p /tmp /user/root /tmp/hadoop-yarn/staging/history 2>>"$C/logs/client.out"
  client org.apache.hadoop.fs.FsShell -chmod -R 1777 /tmp 2>>"$C/logs/client.out"
  start_daemon jhs "" "$ETC" 512m org.apache.hadoop.mapreduce.v2.hs.JobHistoryServer
  wait_for "$NODES RUNNING NodeManagers" 240 enough running_nms
  wait_for "the JobHistoryServer" 120 http_get "http://127.0.0.1:$JHS_WEB/ws/v1/history/info" >/dev/null
  trap - ERR
  if [[ "$INJECTOR" == cgroup ]]; then
    for ((n = 1; n <= NODES; n++)); do set_cpu "$n" 1; done
  fi
  echo "UP_SECONDS=$((SECONDS - t0))" >> "$STATE"
  say "up in $((SECONDS - t0)) s: $NODES NodeManagers RUNNING, $NODES DataNodes live, HDFS out of safe mode"
  cmd_status
}

cmd_down() {
  [[ -d "$PIDS" ]] || { say "nothing to stop in $C"; remove_cgroups; return 0; }
  [[ -f "$STATE" ]] && source "$STATE"
  local f pid left=()
  # Lift the nodes' quotas so their daemons shut down at full speed.
  for f in "$CG_CPU/$CG_NAME"/n*/cpu.cfs_quota_us; do [[ -f "$f" ]] && echo -1 > "$f"; done
  for f in "$PIDS"/*.pid; do
    [[ -f "$f" ]] || continue
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid" 2>/dev/null || true; left+=("$pid"); fi
  done
  local t=0
  while ((${#left[@]} > 0 && t < 40)); do
    local still=()
    for pid in "${left[@]}"; do kill -0 "$pid" 2>/dev/null && still+=("$pid"); done
    left=("${still[@]+"${still[@]}"}")
    ((${#left[@]} > 0)) && sleep 0.5
    t=$((t + 1))
  done
  for pid in "${left[@]+"${left[@]}"}"; do
    say "$(grep -l "^$pid\$" "$PIDS"/*.pid | xargs -n1 basename | sed 's/.pid$//') did not stop within 20 s of SIGTERM: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  done
  for pid in "${left[@]+"${left[@]}"}"; do
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  done
  # Containers outlive a stopped NodeManager only by accident; a node's cgroup (or, without
  # cgroups, a command line naming the node's directories) finds any that did.
  local stray
  stray=$(cat "$CG_CPU/$CG_NAME"/n*/cgroup.procs 2>/dev/null; pgrep -f -- "$C/nodes/n[0-9]" || true)
  if [[ -n "${stray//[[:space:]]/}" ]]; then
    say "killing containers left on the nodes: $(echo $stray)"
    # shellcheck disable=SC2086
    kill -KILL $stray 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$PIDS"/*.pid "$C"/nodes/lost-*
  remove_cgroups
  say "down: every process started from $C stopped"
}

cmd_status() {
  load_state
  local f name state
  echo "cluster: $C (Hadoop $(hadoop_version)), $NODES nodes x $SLOTS slots of 512 MB, injector $INJECTOR"
  for f in "$PIDS"/*.pid; do
    [[ -f "$f" ]] || continue
    name=$(basename "$f" .pid)
    if kill -0 "$(cat "$f")" 2>/dev/null; then state="running"; else state="STOPPED"; fi
    printf '  %-4s pid %-7s %-8s log %s\n' "$name" "$(cat "$f")" "$state" "$(log_of "$name")"
  done
  echo "  NodeManagers RUNNING: $(running_nms) of $NODES; DataNodes live: $(live_datanodes) of $NODES"
  local n
  for ((n = 1; n <= NODES; n++)); do
    printf '  node %d: %s  NM %s  shuffle %s  DN %s  cpu %s of its share  cgroup %s\n' "$n" "$(node_ip "$n")" \
      "$(node_port "$n" 0)" "$(node_port "$n" 3)" "$(node_port "$n" 10)" "$(cat "$C/nodes/n$n/cpu-fraction" 2>/dev/null || echo -)" \
      "$([[ "$INJECTOR" == cgroup ]] && echo "$CG_CPU/$CG_NAME/n$n" || echo none)"
  done
  echo "  web UIs: ResourceManager http://127.0.0.1:$RM_WEB  JobHistory http://127.0.0.1:$JHS_WEB  NameNode http://127.0.0.1:$NN_HTTP"
  echo "  client config: HADOOP_CONF_DIR=$ETC; examples: $(examples_jar 2>/dev/null || echo '?')"
}

cmd_run() {
  load_state
  [[ $# -ge 1 ]] || die "run: what? jar JAR ARGS | fs ARGS | job ARGS | class MAIN ARGS"
  local what="$1"; shift
  # The client replaces this shell, so whoever started `run` holds the JVM's own pid.
  local CLIENT_EXEC=1
  case "$what" in
    jar) client org.apache.hadoop.util.RunJar "$@" ;;
    fs|dfs) client org.apache.hadoop.fs.FsShell "$@" ;;
    job) client org.apache.hadoop.mapred.JobClient "$@" ;;
    class) client "$@" ;;
    examples) client org.apache.hadoop.util.RunJar "$(examples_jar)" "$@" ;;
    *) die "run: unknown command $what (jar, examples, fs, job, class)" ;;
  esac
}

check_node() {
  [[ "$1" =~ ^[0-9]+$ && "$1" -ge 1 && "$1" -le "$NODES" ]] || die "node must be 1..$NODES: $1"
}

cmd_slow() {
  load_state
  [[ $# -eq 2 ]] || die "slow: N FRACTION (e.g. slow 2 0.166 for a node at 1/6 of its CPU share)"
  check_node "$1"
  python3 -c "import sys; assert 0 < float(sys.argv[1]) <= 1" "$2" 2>/dev/null || die "slow: FRACTION must be in (0, 1]: $2"
  if [[ "$INJECTOR" == cgroup ]]; then
    set_cpu "$1" "$2"
    say "node $1 ($(node_ip "$1")): CPU quota $(cat "$CG_CPU/$CG_NAME/n$1/cpu.cfs_quota_us") us per 100 ms ($2 of its share)"
  else
    sigstop_slow "$1" "$2"
  fi
}

# Without cgroups: a duty cycle of SIGSTOP/SIGCONT over the node's task containers (never its
# daemons or an ApplicationMaster), running FRACTION of every 500 ms.
sigstop_slow() {
  local n="$1" fraction="$2" f="$PIDS/slow-n$1.pid"
  if [[ -f "$f" ]]; then kill "$(cat "$f")" 2>/dev/null || true; rm -f "$f"; fi
  # shellcheck disable=SC2046
  kill -CONT $(pgrep -f -- "$C/nodes/n$n/.*YarnChild" || true) 2>/dev/null || true
  echo "$fraction" > "$C/nodes/n$n/cpu-fraction"
  if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 1 else 1)" "$fraction"; then
    say "node $n ($(node_ip "$n")): SIGSTOP injector off"
    return 0
  fi
  local run stop
  run=$(python3 -c "import sys; print(round(0.5 * float(sys.argv[1]), 3))" "$fraction")
  stop=$(python3 -c "import sys; print(round(0.5 * (1 - float(sys.argv[1])), 3))" "$fraction")
  (
    trap 'kill -CONT $(pgrep -f -- "$C/nodes/n$n/.*YarnChild" || true) 2>/dev/null; exit 0' TERM
    while :; do
      sleep "$run"
      pids=$(pgrep -f -- "$C/nodes/n$n/.*YarnChild" || true)
      [[ -n "$pids" ]] && kill -STOP $pids 2>/dev/null
      sleep "$stop"
      [[ -n "$pids" ]] && kill -CONT $pids 2>/dev/null
    done
  ) </dev/null >/dev/null 2>&1 &
  echo $! > "$f"
  say "node $n ($(node_ip "$n")): SIGSTOP injector, its tasks run $run s of every 0.5 s (no cgroups)"
}

cmd_disk() {
  load_state
  [[ $# -eq 2 ]] || die "disk: N BYTES_PER_S (0 removes the limit)"
  check_node "$1"
  [[ "$2" =~ ^[0-9]+$ ]] || die "disk: BYTES_PER_S must be a whole number: $2"
  local g="$CG_BLKIO/$CG_NAME/n$1" dev
  [[ -d "$g" ]] || die "disk: no blkio cgroup for node $1 (cgroups off or blkio not writable)"
  dev=$(block_device) || die "disk: $C is not on a block device that blkio can throttle (overlay or tmpfs?)"
  echo "$dev $2" > "$g/blkio.throttle.read_bps_device"
  echo "$dev $2" > "$g/blkio.throttle.write_bps_device"
  say "node $1: disk reads and writes on $dev limited to $2 B/s"
}

cmd_kill_node() {
  load_state
  [[ $# -eq 1 ]] || die "kill-node: N"
  check_node "$1"
  local n="$1" procs
  touch "$C/nodes/lost-dn$n" "$C/nodes/lost-nm$n"
  if [[ "$INJECTOR" == cgroup ]]; then
    procs=$(cat "$CG_CPU/$CG_NAME/n$n/cgroup.procs")
  else
    procs="$(cat "$PIDS/dn$n.pid" "$PIDS/nm$n.pid" 2>/dev/null) $(pgrep -f -- "$C/nodes/n$n/" || true)"
  fi
  # shellcheck disable=SC2086
  kill -KILL $procs 2>/dev/null || true
  say "node $n ($(node_ip "$n")) killed: $(echo $procs | wc -w) processes; the RM declares it lost after 10 s"
}

cmd_install_rein() {
  load_state
  local jar="" route=lib
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --route) route="$2"; shift 2 ;;
      *) jar="$1"; shift ;;
    esac
  done
  [[ -f "$jar" ]] || die "install-rein: no such jar: '$jar' (build it with: mvn -B install -DskipTests)"
  [[ "$route" == lib || "$route" == classpath ]] || die "install-rein: --route must be lib or classpath: $route"
  rm -f "$H"/share/hadoop/mapreduce/lib/rein-yarn-*.jar "$H"/share/rein/rein-yarn-*.jar
  if [[ "$route" == lib ]]; then
    cp "$jar" "$H/share/hadoop/mapreduce/lib/"
    write_rein_conf lib ""
    say "rein installed: $(basename "$jar") copied into $H/share/hadoop/mapreduce/lib/; speculator key in mapred-site.xml"
  else
    mkdir -p "$H/share/rein"
    cp "$jar" "$H/share/rein/"
    write_rein_conf classpath "$H/share/rein/$(basename "$jar")"
    say "rein installed: $H/share/rein/$(basename "$jar") appended to mapreduce.application.classpath; speculator key in mapred-site.xml"
  fi
  rewrite_all_conf
}

cmd_uninstall_rein() {
  load_state
  rm -f "$H"/share/hadoop/mapreduce/lib/rein-yarn-*.jar "$H"/share/rein/rein-yarn-*.jar "$C/rein-site.part"
  rewrite_all_conf
  say "rein removed from the cluster's MapReduce classpath and mapred-site.xml"
}

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down ;;
  status) shift; cmd_status ;;
  run) shift; cmd_run "$@" ;;
  slow) shift; cmd_slow "$@" ;;
  disk) shift; cmd_disk "$@" ;;
  kill-node) shift; cmd_kill_node "$@" ;;
  install-rein) shift; cmd_install_rein "$@" ;;
  uninstall-rein) shift; cmd_uninstall_rein ;;
  dist) shift; dist ;;
  -h|--help|help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
