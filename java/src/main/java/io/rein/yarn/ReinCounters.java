package io.rein.yarn;

/** rein's job counters, shown beside Hadoop's in the job's counters and history. */
public enum ReinCounters {
  /** Speculative copies rein asked Hadoop to launch. */
  SPECULATIVE_LAUNCHED,
  /** Attempts rein killed so that Hadoop restarts them. */
  RESTARTS,
  /** Extra clone copies rein asked for. */
  CLONES,
  /** Copies rein killed because they landed on a node to avoid. */
  VETOES,
  /** Reduces rein killed just after they started so that Hadoop places them on another rack. */
  MOVES,
  /** Actions rein dropped because they were no longer legal (e.g. the task had finished). */
  ACTIONS_DROPPED,
  /** 1 when the job ran under the fallback because the native engine could not. */
  FALLBACK,
  /** Copies rein asked for that started. */
  COPIES_STARTED,
  /** Copies rein asked for that finished first. */
  COPIES_WON,
  /** Container-seconds of rein's copies and of the attempts it killed. */
  COPY_CONTAINER_SECONDS,
  /** The job's estimated end without rein's copies and restarts, less its actual end. */
  ESTIMATED_SECONDS_SAVED,
  /** Shadow mode: actions rein would have taken. */
  SHADOW_ACTIONS,
  /** Shadow mode: how much sooner the job would have ended with rein's copies, estimated. */
  SHADOW_ESTIMATED_SECONDS_SAVED,
  /** Nodes rein asked the AM to keep the job's containers off ({@code rein.veto.block-node}). */
  NODES_BLOCKED
}
