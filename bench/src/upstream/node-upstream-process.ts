import { createServer, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { chatCompletionEvents, chatCompletionJson } from './canned-replies.js';

// A fake OpenAI upstream that costs almost nothing, run as its own process.
//  fast: answers every POST at once with a canned reply; `PUT /__mode/json|sse` picks the kind
//        (the same switch the nginx upstream has), so the request body is never parsed.
//  slow: streams the events one per tick (`--interval` ms), for the many-concurrent-streams test.
// `GET /__stats` answers {requests}: the replies served, for the no-lost-settlement check.

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    kind: { type: 'string', default: 'fast' },
    interval: { type: 'string', default: '200' },
    model: { type: 'string', default: 'gpt-4o-mini' },
  },
});

const kind = values.kind === 'slow' ? 'slow' : 'fast';
const jsonReply = Buffer.from(chatCompletionJson(values.model));
const events = chatCompletionEvents(values.model).map((e) => Buffer.from(e));
const sseReply = Buffer.concat(events);
let mode: 'json' | 'sse' = kind === 'slow' ? 'sse' : 'json';
let requests = 0;

interface SlowStream {
  res: ServerResponse;
  next: number;
}
const streams = new Set<SlowStream>();

// One timer for every slow stream: each tick sends every open stream its next event.
if (kind === 'slow') {
  setInterval(() => {
    for (const s of streams) {
      const e = events[s.next++];
      if (e) s.res.write(e);
      if (s.next >= events.length) {
        s.res.end();
        streams.delete(s);
      }
    }
  }, Number(values.interval));
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  if (url === '/__stats') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ requests, open: streams.size }));
    return;
  }
  if (req.method === 'PUT' && url.startsWith('/__mode/')) {
    mode = url.endsWith('/sse') ? 'sse' : 'json';
    res.end(mode);
    return;
  }
  req.resume();
  req.on('end', () => {
    requests++;
    if (kind === 'slow') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      const s: SlowStream = { res, next: 0 };
      streams.add(s);
      res.on('close', () => streams.delete(s));
      return;
    }
    const body = mode === 'sse' ? sseReply : jsonReply;
    res.writeHead(200, {
      'content-type': mode === 'sse' ? 'text/event-stream' : 'application/json',
      'content-length': body.length,
    });
    res.end(body);
  });
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 130_000;
server.maxRequestsPerSocket = 0;
// A deep backlog: the slow-stream test opens a thousand connections within a second.
server.listen({ port: Number(values.port), host: '127.0.0.1', backlog: 4096 }, () => process.send?.('ready'));
process.on('SIGTERM', () => process.exit(0));
