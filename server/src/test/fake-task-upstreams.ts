import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';
import { jwtVerify } from 'jose';

// Real HTTP servers on ephemeral ports that answer like the asynchronous task APIs the gateway
// relays: a midjourney-proxy deployment (`mj-api-secret`, `{code, description, result}` submits,
// task objects with millisecond times, `list-by-condition`, image links), a Suno-API deployment
// (Bearer key, `{code: "success", data}`), and Kling's API (HS256 JWT checked against the access
// and secret keys, `{code: 0, data: {task_id, task_status}}`). Tests move tasks along with
// `progress`, `succeed` and `fail`. Test side only.

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  json: unknown;
}

type TaskState = 'SUBMITTED' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE';

interface FakeTask {
  id: string;
  action: string;
  state: TaskState;
  progress: number;
  failReason: string;
  submitMs: number;
  body: Record<string, unknown>;
}

export interface FakeTaskUpstream {
  url: string;
  requests: SeenRequest[];
  /** Tasks by upstream id. */
  tasks: Map<string, FakeTask>;
  progress(id: string, percent: number): void;
  succeed(id: string): void;
  fail(id: string, reason: string): void;
  /** The next submit answers this (a refusal, a queued or known task) instead of taking a new task. */
  answerNext(status: number, body: unknown): void;
  /** Every poll answers this status (an upstream that is down). */
  pollStatus: number;
  /** While true, requests are read and never answered (an upstream that hangs). */
  hang: boolean;
  close(): Promise<void>;
}

/** A PNG's first bytes and a little more: what the image proxy must pass on unchanged. */
export const FAKE_IMAGE = png(256, 256);

/** A real PNG of one colour (a browser shows it), built from its chunks: what the image proxy must pass on unchanged. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, Buffer.from([0x2f, 0x6f, 0xd6]))]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return Symbol.for('invalid');
  }
}

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, seen: SeenRequest, base: FakeBase) => unknown,
): Promise<FakeTaskUpstream> {
  const base: FakeBase = {
    tasks: new Map(),
    next: 1,
    refusal: undefined,
    pollStatus: 200,
    hang: false,
    url: '',
  };
  const requests: SeenRequest[] = [];
  const server = createServer(async (req, res) => {
    const json = await readJson(req);
    const seen: SeenRequest = {
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://fake.local').pathname,
      headers: req.headers,
      json,
    };
    requests.push(seen);
    if (base.hang) return;
    if (json === Symbol.for('invalid')) return send(res, 400, { code: 4, description: 'invalid json' });
    await handler(req, res, seen, base);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const task = (id: string) => {
    const t = base.tasks.get(id);
    if (!t) throw new Error(`the fake has no task ${id}`);
    return t;
  };
  const fake: FakeTaskUpstream = {
    url: base.url,
    requests,
    tasks: base.tasks,
    progress(id, percent) {
      const t = task(id);
      t.state = 'IN_PROGRESS';
      t.progress = percent;
    },
    succeed(id) {
      const t = task(id);
      t.state = 'SUCCESS';
      t.progress = 100;
    },
    fail(id, reason) {
      const t = task(id);
      t.state = 'FAILURE';
      t.failReason = reason;
    },
    answerNext(status, body) {
      base.refusal = { status, body };
    },
    get pollStatus() {
      return base.pollStatus;
    },
    set pollStatus(v: number) {
      base.pollStatus = v;
    },
    get hang() {
      return base.hang;
    },
    set hang(v: boolean) {
      base.hang = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

interface FakeBase {
  tasks: Map<string, FakeTask>;
  next: number;
  refusal: { status: number; body: unknown } | undefined;
  pollStatus: number;
  hang: boolean;
  url: string;
}

function take(base: FakeBase, action: string, body: Record<string, unknown>, prefix: string): FakeTask {
  const id = `${prefix}${Date.now()}${base.next++}`;
  const t: FakeTask = {
    id,
    action,
    state: 'SUBMITTED',
    progress: 0,
    failReason: '',
    submitMs: Date.now(),
    body,
  };
  base.tasks.set(id, t);
  return t;
}

// midjourney-proxy: submit paths under /mj (and /mj-turbo/mj, ...), answers with HTTP 200 always.
const MJ_SUBMIT = /^(?:\/mj-(?:fast|turbo|relax))?\/mj\/(submit\/[a-z-]+|insight-face\/swap)$/;

function mjDto(base: FakeBase, t: FakeTask) {
  const done = t.state === 'SUCCESS';
  return {
    id: t.id,
    action: t.action,
    prompt: String(t.body.prompt ?? ''),
    promptEn: String(t.body.prompt ?? ''),
    description: '/imagine',
    state: '',
    submitTime: t.submitMs,
    startTime: t.state === 'SUBMITTED' ? 0 : t.submitMs + 1000,
    finishTime: done || t.state === 'FAILURE' ? t.submitMs + 5000 : 0,
    imageUrl: done ? `${base.url}/attachments/${t.id}.png` : '',
    status: t.state,
    progress: `${t.progress}%`,
    failReason: t.failReason,
    buttons: done
      ? [{ customId: `MJ::JOB::upsample::1::${t.id}`, label: 'U1', type: 2, style: 2, emoji: '' }]
      : [],
    properties: { finalPrompt: String(t.body.prompt ?? '') },
  };
}

export async function startFakeMidjourney(options: { secret: string }): Promise<FakeTaskUpstream> {
  return serve((req, res, seen, base) => {
    if (seen.path.startsWith('/attachments/')) {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': FAKE_IMAGE.length });
      return res.end(FAKE_IMAGE);
    }
    if (req.headers['mj-api-secret'] !== options.secret)
      return send(res, 401, { code: 401, description: 'Unauthorized' });
    const submit = MJ_SUBMIT.exec(seen.path);
    const body = (seen.json ?? {}) as Record<string, unknown>;
    if (submit && seen.method === 'POST') {
      if (base.refusal) {
        const r = base.refusal;
        base.refusal = undefined;
        return send(res, r.status, r.body);
      }
      const path = submit[1]!;
      if (path === 'submit/upload-discord-images') {
        const n = Array.isArray(body.base64Array) ? body.base64Array.length : 0;
        const links = Array.from(
          { length: n },
          (_, i) => `${base.url}/attachments/upload-${base.next++}-${i}.png`,
        );
        return send(res, 200, { code: 1, description: 'success', result: links });
      }
      const action = path === 'submit/imagine' ? 'IMAGINE' : path.replace(/^submit\//, '').toUpperCase();
      if (path === 'submit/imagine' && typeof body.prompt !== 'string')
        return send(res, 200, { code: 4, description: 'prompt must not be blank' });
      const t = take(base, action, body, '');
      return send(res, 200, {
        code: 1,
        description: 'Submit success',
        result: t.id,
        properties: { discordInstanceId: '1' },
      });
    }
    if (seen.path === '/mj/task/list-by-condition' && seen.method === 'POST') {
      if (base.pollStatus !== 200) return send(res, base.pollStatus, { code: 5, description: 'down' });
      const ids = Array.isArray(body.ids) ? (body.ids as string[]) : [];
      return send(
        res,
        200,
        ids.flatMap((id) => {
          const t = base.tasks.get(id);
          return t ? [mjDto(base, t)] : [];
        }),
      );
    }
    const seed = /^\/mj\/task\/([^/]+)\/image-seed$/.exec(seen.path);
    if (seed && seen.method === 'GET') {
      const t = base.tasks.get(decodeURIComponent(seed[1]!));
      if (!t) return send(res, 404, { code: 3, description: 'task not found' });
      return send(res, 200, { code: 1, description: 'success', result: `seed-${t.id}` });
    }
    return send(res, 404, { code: 4, description: 'not found' });
  });
}

function sunoDto(t: FakeTask) {
  const done = t.state === 'SUCCESS';
  return {
    task_id: t.id,
    action: t.action,
    status: t.state,
    fail_reason: t.failReason,
    submit_time: Math.floor(t.submitMs / 1000),
    start_time: t.state === 'SUBMITTED' ? 0 : Math.floor(t.submitMs / 1000) + 1,
    finish_time: done || t.state === 'FAILURE' ? Math.floor(t.submitMs / 1000) + 5 : 0,
    progress: `${t.progress}%`,
    data: done
      ? t.action === 'LYRICS'
        ? { id: t.id, text: '[Verse]\nla la la', title: 'Song', status: 'complete' }
        : [
            {
              id: `${t.id}-clip`,
              audio_url: `https://cdn.example/${t.id}.mp3`,
              user_id: 'suno-user-1',
              status: 'complete',
            },
          ]
      : null,
  };
}

export async function startFakeSuno(options: { key: string }): Promise<FakeTaskUpstream> {
  return serve((req, res, seen, base) => {
    if (req.headers.authorization !== `Bearer ${options.key}`)
      return send(res, 401, { code: 'unauthorized', message: 'invalid key', data: null });
    const body = (seen.json ?? {}) as Record<string, unknown>;
    const submit = /^\/suno\/submit\/(music|lyrics)$/.exec(seen.path);
    if (submit && seen.method === 'POST') {
      if (base.refusal) {
        const r = base.refusal;
        base.refusal = undefined;
        return send(res, r.status, r.body);
      }
      const t = take(base, submit[1]!.toUpperCase(), body, 'suno-');
      return send(res, 200, { code: 'success', message: '', data: t.id });
    }
    if (seen.path === '/suno/fetch' && seen.method === 'POST') {
      if (base.pollStatus !== 200)
        return send(res, base.pollStatus, { code: 'error', message: 'down', data: null });
      const ids = Array.isArray(body.ids) ? (body.ids as string[]) : [];
      const data = ids.flatMap((id) => {
        const t = base.tasks.get(id);
        return t ? [sunoDto(t)] : [];
      });
      return send(res, 200, { code: 'success', message: '', data });
    }
    return send(res, 404, { code: 'not_found', message: 'not found', data: null });
  });
}

const KLING_STATUS: Record<TaskState, string> = {
  SUBMITTED: 'submitted',
  IN_PROGRESS: 'processing',
  SUCCESS: 'succeed',
  FAILURE: 'failed',
};

function klingData(t: FakeTask) {
  return {
    task_id: t.id,
    task_status: KLING_STATUS[t.state],
    task_status_msg: t.failReason,
    created_at: t.submitMs,
    updated_at: Date.now(),
    ...(t.state === 'SUCCESS'
      ? {
          task_result: {
            videos: [{ id: `${t.id}-v`, url: `https://cdn.example/${t.id}.mp4`, duration: '5' }],
          },
        }
      : {}),
  };
}

export async function startFakeKling(options: {
  accessKey: string;
  secretKey: string;
}): Promise<FakeTaskUpstream> {
  const secret = new TextEncoder().encode(options.secretKey);
  return serve(async (req, res, seen, base) => {
    const auth = String(req.headers.authorization ?? '');
    const requestId = `req-${base.next}`;
    try {
      const { payload } = await jwtVerify(auth.replace(/^Bearer /, ''), secret, {
        algorithms: ['HS256'],
        issuer: options.accessKey,
      });
      if (typeof payload.exp !== 'number') throw new Error('no exp');
    } catch {
      return send(res, 401, { code: 1001, message: 'Authorization is invalid', request_id: requestId });
    }
    const body = (seen.json ?? {}) as Record<string, unknown>;
    const submit = /^\/v1\/videos\/(text2video|image2video)$/.exec(seen.path);
    if (submit && seen.method === 'POST') {
      if (base.refusal) {
        const r = base.refusal;
        base.refusal = undefined;
        return send(res, r.status, r.body);
      }
      if (typeof body.prompt !== 'string' && submit[1] === 'text2video')
        return send(res, 400, { code: 1201, message: 'prompt is required', request_id: requestId });
      const t = take(base, submit[1]!, body, 'kling-');
      return send(res, 200, { code: 0, message: 'SUCCEED', request_id: requestId, data: klingData(t) });
    }
    const query = /^\/v1\/videos\/(text2video|image2video)\/([^/]+)$/.exec(seen.path);
    if (query && seen.method === 'GET') {
      if (base.pollStatus !== 200)
        return send(res, base.pollStatus, { code: 5000, message: 'down', request_id: requestId });
      const t = base.tasks.get(decodeURIComponent(query[2]!));
      if (!t) return send(res, 404, { code: 1203, message: 'task not found', request_id: requestId });
      return send(res, 200, { code: 0, message: 'SUCCEED', request_id: requestId, data: klingData(t) });
    }
    return send(res, 404, { code: 1200, message: 'not found', request_id: requestId });
  });
}
