import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { overlapScore } from './fake-cohere.js';

// A real HTTP server on an ephemeral port that answers like Jina's reranker (`POST /v1/rerank`):
// results with `document: {text}` unless `return_documents` is false, `usage.total_tokens`, and
// FastAPI-style errors (`{"detail": ...}`). Test side only.

export interface FakeJina {
  url: string;
  requests: { headers: IncomingHttpHeaders; json: Record<string, unknown> }[];
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startFakeJina(options: { apiKey: string }): Promise<FakeJina> {
  const requests: FakeJina['requests'] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return send(res, 422, { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
    }
    requests.push({ headers: req.headers, json });
    if (req.headers.authorization !== `Bearer ${options.apiKey}`)
      return send(res, 401, { detail: 'Unauthorized: Invalid API key' });
    if (new URL(req.url ?? '/', 'http://fake.local').pathname !== '/v1/rerank')
      return send(res, 404, { detail: 'Not Found' });
    if (typeof json.query !== 'string')
      return send(res, 422, { detail: [{ loc: ['body', 'query'], msg: 'Field required', type: 'missing' }] });
    const docs = (Array.isArray(json.documents) ? json.documents : []).map((d) =>
      typeof d === 'string' ? d : String((d as { text?: unknown }).text ?? ''),
    );
    const results = docs
      .map((text, index) => ({
        index,
        ...(json.return_documents === false ? {} : { document: { text } }),
        relevance_score: overlapScore(json.query as string, text),
      }))
      .sort((a, b) => b.relevance_score - a.relevance_score)
      .slice(0, typeof json.top_n === 'number' ? json.top_n : docs.length);
    const tokens = Math.ceil((String(json.query).length + docs.join('').length) / 4);
    send(res, 200, { model: json.model, usage: { total_tokens: tokens }, results });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
