import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TallyCounter, TallyHistogram } from './tallies.js';

describe('tallies', () => {
  it('export counters and cumulative histograms (bounds inclusive) in the text format', async () => {
    const registry = new Registry();
    const counter = new TallyCounter(registry, 'calls_total', 'Calls');
    const a = counter.cell({ status: '200' });
    const b = counter.cell({ status: '500' });
    a.value += 3;
    b.value++;
    const histogram = new TallyHistogram(registry, 'wait_seconds', 'Wait', [0.1, 1]);
    const h = histogram.cell({ route: '/x' });
    for (const v of [0.05, 0.1, 0.5, 1, 7]) h.observe(v);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE calls_total counter');
    expect(text).toContain('calls_total{status="200"} 3');
    expect(text).toContain('calls_total{status="500"} 1');
    expect(text).toContain('# TYPE wait_seconds histogram');
    expect(text).toContain('wait_seconds_bucket{le="0.1",route="/x"} 2');
    expect(text).toContain('wait_seconds_bucket{le="1",route="/x"} 4');
    expect(text).toContain('wait_seconds_bucket{le="+Inf",route="/x"} 5');
    expect(text).toContain('wait_seconds_sum{route="/x"} 8.65');
    expect(text).toContain('wait_seconds_count{route="/x"} 5');
    registry.resetMetrics();
    const after = await registry.metrics();
    expect(after).toContain('calls_total{status="200"} 0');
    expect(after).toContain('wait_seconds_count{route="/x"} 0');
  });
});

describe('relay route labels', () => {
  it('fold the model named in a path, keeping the method', async () => {
    const { RelayMetrics } = await import('./relay-metrics.js');
    const m = new RelayMetrics(new Registry());
    expect(m.routeOf('/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse')).toBe(
      '/v1beta/models/:model:streamGenerateContent',
    );
    expect(m.routeOf('/v1/models/gpt-4o')).toBe('/v1/models/:model');
    expect(m.routeOf('/v1/chat/completions')).toBe('/v1/chat/completions');
  });
});
