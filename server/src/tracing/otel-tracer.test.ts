import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../test/fake-upstream.js';
import { createChannel, createToken, settled } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';

const UPSTREAM_KEY = 'sk-upstream-trace-test';

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string };
}
interface OtlpSpan {
  name: string;
  attributes: OtlpAttribute[];
}

/** A collector's OTLP/HTTP JSON trace endpoint: records every span it is sent. */
async function startFakeCollector(): Promise<{ url: string; spans: OtlpSpan[]; server: Server }> {
  const spans: OtlpSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (
        req.method !== 'POST' ||
        req.url !== '/v1/traces' ||
        !/json/.test(req.headers['content-type'] ?? '')
      ) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, server };
}

const attr = (span: OtlpSpan, key: string) => {
  const v = span.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue === undefined ? undefined : Number(v.intValue));
};

describe('OpenTelemetry tracing', () => {
  let collector: Awaited<ReturnType<typeof startFakeCollector>>;
  let up: FakeUpstream;
  let t: TestApp | undefined;

  beforeAll(async () => {
    collector = await startFakeCollector();
    up = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
  });
  afterAll(async () => {
    await t?.close();
    await up?.close();
    await new Promise((r) => collector?.server.close(r));
  });

  it('is off without an endpoint', async () => {
    const plain = await createTestApp();
    try {
      expect(plain.s.ops?.tracer).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it('sends a span per relay call and per API request, carrying the request id, to the OTLP endpoint', async () => {
    t = await createTestApp({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const root = await t.signIn('root', ROOT_PASSWORD);
    await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: root },
      payload: { model: 'trace-chat', type: 'tokens', channel_type: 1, input: 1, output: 1 },
    });
    const [channel] = await createChannel(t, root, {
      name: 'traced',
      key: UPSTREAM_KEY,
      base_url: up.url,
      models: ['trace-chat'],
    });
    const token = await createToken(t, root);
    const requestId = 'trace-test-request-0001';
    const res = await fetch(`${gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token.key}`,
        'content-type': 'application/json',
        'x-request-id': requestId,
      },
      body: JSON.stringify({ model: 'trace-chat', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    await res.text();
    const status = await fetch(`${gateway}/api/status`, {
      headers: { 'x-request-id': 'trace-test-api-0002' },
    });
    expect(status.status).toBe(200);
    await settled(t);
    // Shutting down flushes the batch to the collector.
    await t.close();
    t = undefined;

    const relay = collector.spans.find((s) => attr(s, 'switchyard.request_id') === requestId);
    expect(relay, JSON.stringify(collector.spans.map((s) => s.name))).toBeDefined();
    expect(relay!.name).toBe('POST /v1/chat/completions');
    expect(attr(relay!, 'http.response.status_code')).toBe(200);
    expect(attr(relay!, 'gen_ai.request.model')).toBe('trace-chat');
    expect(attr(relay!, 'switchyard.channel_id')).toBe(channel);
    const api = collector.spans.find((s) => attr(s, 'switchyard.request_id') === 'trace-test-api-0002');
    expect(api?.name).toBe('GET /api/status');
  });
});
