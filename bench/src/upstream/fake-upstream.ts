// The fake provider the gateway, the bare proxy and the direct calls all reach.

export type ReplyMode = 'json' | 'sse';

export interface FakeUpstream {
  /** `nginx 1.22.1` or `node`: printed with the results. */
  readonly description: string;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Chooses what every chat request gets next: a JSON completion or a 50-chunk event stream. */
  useMode(mode: ReplyMode): Promise<void>;
  /** Chat requests answered so far. */
  requestCount(): Promise<number>;
  stop(): Promise<void>;
}
