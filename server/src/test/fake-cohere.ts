import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A real HTTP server on an ephemeral port that answers like Cohere's v2 API: `/v2/chat` as JSON
// or as its named SSE events (message-start, content-*, tool-plan-delta, tool-call-*,
// message-end with usage), `/v2/rerank` with scores and billed search units, and Cohere's error
// bodies (`{"id","message"}`). Relevance is a word-overlap score, so results are deterministic.
// Test side only.

export interface RecordedCohereRequest {
  path: string;
  headers: IncomingHttpHeaders;
  json: Record<string, unknown>;
}

export type CohereScenario =
  | { kind: 'ok'; content?: string; toolCalls?: { name: string; arguments: string }[]; inputTokens?: number }
  | { kind: 'error'; status: number; message: string };

export interface FakeCohere {
  url: string;
  requests: RecordedCohereRequest[];
  setScenario(s: CohereScenario): void;
  reset(): void;
  close(): Promise<void>;
}

function words(s: string): Set<string> {
  return new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);
}

/** Share of the query's words found in the document. */
export function overlapScore(query: string, doc: string): number {
  const q = words(query);
  const d = words(doc);
  if (q.size === 0) return 0;
  let hit = 0;
  for (const w of q) if (d.has(w)) hit++;
  return Math.round((hit / q.size) * 1000) / 1000;
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startFakeCohere(options: { apiKey: string }): Promise<FakeCohere> {
  const requests: RecordedCohereRequest[] = [];
  let scenario: CohereScenario = { kind: 'ok' };
  let counter = 0;

  function chat(res: ServerResponse, json: Record<string, unknown>, s: CohereScenario & { kind: 'ok' }) {
    const calls = s.toolCalls ?? [];
    const content = s.content ?? (calls.length ? '' : 'Hello from the fake Cohere API.');
    const pieces = content.split(/(?<=\s)/).filter(Boolean);
    const plan = calls.length ? 'I will call the tool.' : '';
    const usage = {
      billed_units: { input_tokens: s.inputTokens ?? 9, output_tokens: pieces.length + calls.length },
      tokens: { input_tokens: (s.inputTokens ?? 9) + 200, output_tokens: pieces.length + calls.length + 2 },
    };
    const finish = calls.length ? 'TOOL_CALL' : 'COMPLETE';
    const id = `c0h3r3-${counter}`;
    const toolCalls = calls.map((c, i) => ({
      id: `call_${counter}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
    if (json.stream !== true) {
      const message: Record<string, unknown> = { role: 'assistant' };
      if (content) message.content = [{ type: 'text', text: content }];
      if (calls.length) {
        message.tool_plan = plan;
        message.tool_calls = toolCalls;
      }
      return send(res, 200, { id, message, finish_reason: finish, usage });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const ev = (payload: Record<string, unknown>) =>
      res.write(`event: ${String(payload.type)}\ndata: ${JSON.stringify(payload)}\n\n`);
    ev({
      id,
      type: 'message-start',
      delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } },
    });
    if (pieces.length) {
      ev({ type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } });
      for (const text of pieces)
        ev({ type: 'content-delta', index: 0, delta: { message: { content: { text } } } });
      ev({ type: 'content-end', index: 0 });
    }
    if (calls.length) ev({ type: 'tool-plan-delta', delta: { message: { tool_plan: plan } } });
    toolCalls.forEach((call, index) => {
      ev({
        type: 'tool-call-start',
        index,
        delta: {
          message: { tool_calls: { ...call, function: { name: call.function.name, arguments: '' } } },
        },
      });
      const args = call.function.arguments;
      const half = Math.ceil(args.length / 2);
      for (const part of [args.slice(0, half), args.slice(half)])
        ev({
          type: 'tool-call-delta',
          index,
          delta: { message: { tool_calls: { function: { arguments: part } } } },
        });
      ev({ type: 'tool-call-end', index });
    });
    ev({ type: 'message-end', delta: { finish_reason: finish, usage } });
    res.end();
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    counter++;
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return send(res, 400, { id: `e${counter}`, message: 'invalid request: unable to parse JSON body' });
    }
    const path = new URL(req.url ?? '/', 'http://fake.local').pathname;
    requests.push({ path, headers: req.headers, json });
    if (req.headers.authorization !== `Bearer ${options.apiKey}`)
      return send(res, 401, { id: `e${counter}`, message: 'invalid api token' });
    const s = scenario;
    if (s.kind === 'error') return send(res, s.status, { id: `e${counter}`, message: s.message });
    if (path === '/v2/chat') {
      if (!Array.isArray(json.messages))
        return send(res, 400, { id: `e${counter}`, message: 'invalid request: messages must be an array' });
      return chat(res, json, s);
    }
    if (path === '/v2/rerank') {
      const docs = Array.isArray(json.documents) ? (json.documents as unknown[]) : [];
      if (docs.some((d) => typeof d !== 'string'))
        return send(res, 400, {
          id: `e${counter}`,
          message: 'invalid request: documents must be strings in v2',
        });
      const results = docs
        .map((d, index) => ({ index, relevance_score: overlapScore(String(json.query ?? ''), String(d)) }))
        .sort((a, b) => b.relevance_score - a.relevance_score)
        .slice(0, typeof json.top_n === 'number' ? json.top_n : docs.length);
      return send(res, 200, {
        id: `r${counter}`,
        results,
        meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
      });
    }
    return send(res, 404, { id: `e${counter}`, message: `path ${path} not found` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    setScenario(s) {
      scenario = s;
    },
    reset() {
      requests.length = 0;
      scenario = { kind: 'ok' };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
