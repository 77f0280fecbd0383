import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import type { LoadResult } from '../report/results.js';
import type { LoadGenerator, LoadSpec } from './load-generator.js';

// The fallback load generator when wrk is not installed: autocannon in this process. Its latency
// histogram has a resolution of 1 ms, so one-connection latencies come from the sequential client.

export function autocannonVersion(): string {
  const require = createRequire(import.meta.url);
  const pkg = JSON.parse(readFileSync(require.resolve('autocannon/package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export class AutocannonLoad implements LoadGenerator {
  readonly description = `autocannon ${autocannonVersion()}`;

  async run(spec: LoadSpec): Promise<LoadResult> {
    let i = 0;
    const result = await autocannon({
      url: spec.origin,
      connections: spec.connections,
      duration: spec.durationS,
      timeout: 10,
      // autocannon has no pause between requests; a per-connection rate cap comes closest.
      ...(spec.pauseMs ? { connectionRate: Math.max(1, Math.round(1000 / spec.pauseMs)) } : {}),
      requests: [
        {
          method: 'POST',
          path: spec.path,
          headers: { 'content-type': 'application/json' },
          body: spec.body,
          setupRequest: (req) => {
            i = (i + 1) % spec.keys.length;
            return { ...req, headers: { ...req.headers, authorization: `Bearer ${spec.keys[i]}` } };
          },
        },
      ],
    });
    const requests = result.requests.total ?? result['2xx'] + result.non2xx;
    return {
      connections: spec.connections,
      durationS: result.duration,
      requests,
      rps: result.duration > 0 ? requests / result.duration : 0,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      maxMs: result.latency.max,
      non2xx: result.non2xx,
      errors: result.errors,
    };
  }
}
