import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

// A fake of OpenAI's Realtime API (`GET /v1/realtime?model=...` upgraded to a WebSocket), speaking
// its event format: session.created on connect; session.update -> session.updated;
// conversation.item.create -> conversation.item.created; response.create -> response.created,
// output item and content part events, response.text.delta per word, response.text.done and
// response.done with `usage`. A wrong key is refused with 401 before the upgrade, as OpenAI does.

export interface RealtimeUsageSpec {
  input: number;
  output: number;
  inputAudio?: number;
  outputAudio?: number;
  cached?: number;
}

export interface RealtimeScenario {
  /** Words of each reply, sent as one response.text.delta each. */
  text: string;
  usage: RealtimeUsageSpec;
  /** Between deltas. */
  deltaDelayMs?: number;
  /** The socket is destroyed (no close frame) after this many deltas of the next response. */
  dropAfterDeltas?: number;
}

export interface FakeRealtimeConnection {
  url: string;
  headers: IncomingHttpHeaders;
  /** Client events received, by type. */
  received: string[];
  closed: boolean;
  closeCode?: number;
}

export interface FakeRealtime {
  /** `http://127.0.0.1:<port>`: a channel's base URL. */
  url: string;
  connections: FakeRealtimeConnection[];
  setScenario(s: RealtimeScenario): void;
  close(): Promise<void>;
}

let ids = 0;
const id = (prefix: string) => `${prefix}_${(++ids).toString(36).padStart(8, '0')}`;

function usageObject(u: RealtimeUsageSpec) {
  const inAudio = u.inputAudio ?? 0;
  const outAudio = u.outputAudio ?? 0;
  const cached = u.cached ?? 0;
  return {
    total_tokens: u.input + u.output,
    input_tokens: u.input,
    output_tokens: u.output,
    input_token_details: {
      text_tokens: u.input - inAudio,
      audio_tokens: inAudio,
      image_tokens: 0,
      cached_tokens: cached,
      cached_tokens_details: { text_tokens: cached, audio_tokens: 0, image_tokens: 0 },
    },
    output_token_details: { text_tokens: u.output - outAudio, audio_tokens: outAudio },
  };
}

export async function startFakeRealtime(opts: { apiKey: string }): Promise<FakeRealtime> {
  let scenario: RealtimeScenario = { text: 'hello there', usage: { input: 10, output: 2 } };
  const connections: FakeRealtimeConnection[] = [];
  const sockets = new Set<WebSocket>();
  const http = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'Upgrade required', type: 'invalid_request_error' } }));
  });
  const wss = new WebSocketServer({
    server: http,
    verifyClient: (info, done) => {
      const url = new URL(info.req.url ?? '/', 'http://fake');
      if (url.pathname !== '/v1/realtime') {
        done(false, 404, 'Not Found');
        return;
      }
      if (info.req.headers.authorization !== `Bearer ${opts.apiKey}`) {
        done(false, 401, 'Unauthorized', { 'content-type': 'application/json' });
        return;
      }
      done(true);
    },
  });

  wss.on('connection', (ws, req) => {
    sockets.add(ws);
    const url = new URL(req.url ?? '/', 'http://fake');
    const conn: FakeRealtimeConnection = {
      url: req.url ?? '',
      headers: req.headers,
      received: [],
      closed: false,
    };
    connections.push(conn);
    const model = url.searchParams.get('model') ?? '';
    const send = (event: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event_id: id('event'), ...event }));
    };
    const session = {
      id: id('sess'),
      object: 'realtime.session',
      model,
      modalities: ['text', 'audio'],
      instructions: '',
      voice: 'alloy',
      turn_detection: null,
    };
    ws.on('close', (code) => {
      conn.closed = true;
      conn.closeCode = code;
      sockets.delete(ws);
    });
    ws.on('error', () => {});
    send({ type: 'session.created', session });
    let items = 0;
    ws.on('message', (data) => {
      let event: { type?: string; item?: Record<string, unknown>; session?: Record<string, unknown> };
      try {
        event = JSON.parse(String(data));
      } catch {
        send({
          type: 'error',
          error: { type: 'invalid_request_error', code: 'invalid_json', message: 'bad JSON' },
        });
        return;
      }
      conn.received.push(String(event.type));
      if (event.type === 'session.update') {
        Object.assign(session, event.session ?? {});
        send({ type: 'session.updated', session });
      } else if (event.type === 'conversation.item.create') {
        const item = { id: id('item'), object: 'realtime.item', status: 'completed', ...event.item };
        send({ type: 'conversation.item.created', previous_item_id: null, item });
        items++;
      } else if (event.type === 'response.create') {
        void respond(send, ws, scenario, items);
      }
    });
  });

  async function respond(
    send: (e: Record<string, unknown>) => void,
    ws: WebSocket,
    s: RealtimeScenario,
    _items: number,
  ) {
    const responseId = id('resp');
    const itemId = id('item');
    const base = { id: responseId, object: 'realtime.response', status_details: null, metadata: null };
    send({ type: 'response.created', response: { ...base, status: 'in_progress', output: [], usage: null } });
    const item = {
      id: itemId,
      object: 'realtime.item',
      type: 'message',
      role: 'assistant',
      status: 'in_progress',
      content: [],
    };
    send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item });
    const at = { response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 };
    send({ type: 'response.content_part.added', ...at, part: { type: 'text', text: '' } });
    const words = s.text.split(' ');
    let sent = 0;
    for (const [i, word] of words.entries()) {
      if (s.dropAfterDeltas !== undefined && sent >= s.dropAfterDeltas) {
        ws.terminate();
        return;
      }
      if (s.deltaDelayMs) await new Promise((r) => setTimeout(r, s.deltaDelayMs));
      send({ type: 'response.text.delta', ...at, delta: i === 0 ? word : ` ${word}` });
      sent++;
    }
    send({ type: 'response.text.done', ...at, text: s.text });
    send({ type: 'response.content_part.done', ...at, part: { type: 'text', text: s.text } });
    const done = { ...item, status: 'completed', content: [{ type: 'text', text: s.text }] };
    send({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item: done });
    send({
      type: 'response.done',
      response: { ...base, status: 'completed', output: [done], usage: usageObject(s.usage) },
    });
  }

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    setScenario(s) {
      scenario = s;
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
