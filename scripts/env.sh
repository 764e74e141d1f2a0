# Sourced by the scripts: a JDK 17 as JAVA_HOME (YARN containers start $JAVA_HOME/bin/java),
# cargo on PATH, and loud failures when either is missing.
export PATH="$HOME/.cargo/bin:$PATH"
if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "17'; then
  for candidate in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk \
                   "$(dirname "$(dirname "$(readlink -f "$(command -v javac || echo /nonexistent)")")")"; do
    if [ -x "$candidate/bin/javac" ] && "$candidate/bin/java" -version 2>&1 | grep -q 'version "17'; then
      export JAVA_HOME="$candidate"
      break
    fi
  done
fi
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/javac" ]; then
  echo "error: rein needs a JDK 17; set JAVA_HOME to one" >&2
  exit 1
fi
export PATH="$JAVA_HOME/bin:$PATH"
command -v cargo >/dev/null || { echo "error: cargo is not on PATH (install Rust 1.95 with rustup)" >&2; exit 1; }
command -v mvn >/dev/null || { echo "error: mvn is not on PATH (install Maven 3.8+)" >&2; exit 1; }

# Maven 3.8 writes ANSI colour resets even with -B -q and style.color=never; a quiet Maven call
# whose output a user reads goes through this, which strips them. Exits with Maven's status.
mvn_quiet() {
  mvn -B -q -ntp -Dstyle.color=never "$@" 2>&1 | sed -u 's/\x1b\[[0-9;]*m//g'
  return "${PIPESTATUS[0]}"
}
