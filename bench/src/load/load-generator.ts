import type { LoadResult } from '../report/results.js';

/** One fixed-connection load run against a chat endpoint, rotating API keys request by request. */
export interface LoadSpec {
  origin: string;
  path: string;
  connections: number;
  durationS: number;
  body: string;
  keys: readonly string[];
}

export interface LoadGenerator {
  /** `wrk 4.1.0` or `autocannon 9.0.0`. */
  readonly description: string;
  run(spec: LoadSpec): Promise<LoadResult>;
}
