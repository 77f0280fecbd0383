// What the rest of the server sees of the task poller (TaskPoller of task-poller.ts). It imports
// nothing, so services.ts can name it without the poller's imports coming back round to services.ts.

export interface PollReport {
  /** Tasks the upstreams were asked about. */
  asked: number;
  /** Rows changed by what the upstreams said. */
  updated: number;
  /** Tasks failed and refunded in this run. */
  refunded: number;
  /** Channels skipped for back-off or that failed in this run. */
  channelsFailed: number;
}

export interface TaskPolling {
  /** One turn on this node, if it holds the lease; undefined when it did not poll. */
  tick(): Promise<PollReport | undefined>;
  /** Polls every unfinished task once (the caller holds the lease). */
  pollOnce(): Promise<PollReport>;
  stop(): Promise<void>;
}
