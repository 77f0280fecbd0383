import type { LoadResult } from '../report/results.js';

/** One fixed-connection load run against a chat endpoint, rotating API keys request by request. */
export interface LoadSpec {
  origin: string;
  path: string;
  connections: number;
  durationS: number;
  body: string;
  keys: readonly string[];
  /**
   * A pause (ms) each connection takes after a reply before its next request: a steady load below
   * saturation, for the soak. Absent: every connection sends back to back.
   */
  pauseMs?: number;
}

export interface LoadGenerator {
  /** `wrk 4.1.0` or `autocannon 9.0.0`. */
  readonly description: string;
  run(spec: LoadSpec): Promise<LoadResult>;
}
