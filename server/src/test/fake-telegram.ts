import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// Telegram's Bot API as a real HTTP server on an ephemeral port, in its wire format: every method is
// `POST /bot<token>/<method>` with a JSON body, answered `{ok: true, result}` or `{ok: false,
// error_code, description}` (401 for a token it does not know). getUpdates keeps the queue as
// Telegram does: an offset confirms every update below it, an empty queue holds the call up to
// `timeout` seconds, a second getUpdates ends the first with 409, and getUpdates while a webhook is
// set is a 409 too. sendMessage, setWebhook, deleteWebhook and setMyCommands are recorded. `down`
// answers 502 to everything, like Telegram's front end when the API is away. Test side only.

export interface SentMessage {
  chat_id: number;
  text: string;
  parse_mode?: string;
}

export interface FakeTelegram {
  url: string;
  token: string;
  username: string;
  /** Every sendMessage, in order. */
  sent: SentMessage[];
  /** The webhook set now (setWebhook), or undefined. */
  webhook: { url: string; secret_token?: string } | undefined;
  commands: { command: string; description: string }[];
  /** How many getUpdates calls and their conflicts (two pollers at once) were seen. */
  getUpdatesCalls: number;
  conflicts: number;
  /** Answer every call with 502 while true. */
  down: boolean;
  /** Queues a private-chat text message from `userId` (a command gets its bot_command entity). */
  message(
    userId: number,
    text: string,
    o?: { chatType?: 'private' | 'group'; chatId?: number; language?: string },
  ): {
    update_id: number;
    [k: string]: unknown;
  };
  /** Waits until `predicate` holds on `sent`, or fails after `ms`. */
  waitForSent(predicate: (sent: SentMessage[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

interface Waiter {
  respond: (status: number, body: unknown) => void;
  timer: NodeJS.Timeout;
  offset: number;
}

export async function startFakeTelegram(
  token = '123456789:AAFakeTokenForTheTestsOnly_abcdefgh',
): Promise<FakeTelegram> {
  let nextUpdateId = 500_000;
  let nextMessageId = 1;
  let queue: { update_id: number; [k: string]: unknown }[] = [];
  let waiter: Waiter | undefined;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    if (res.writableEnded) return;
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const ok = (res: ServerResponse, result: unknown) => send(res, 200, { ok: true, result });
  const fail = (res: ServerResponse, code: number, description: string) =>
    send(res, code, { ok: false, error_code: code, description });

  const pending = (offset: number) => queue.filter((u) => u.update_id >= offset).slice(0, 100);

  const wake = () => {
    if (!waiter) return;
    const ready = pending(waiter.offset);
    if (ready.length === 0) return;
    const w = waiter;
    waiter = undefined;
    clearTimeout(w.timer);
    w.respond(200, { ok: true, result: ready });
  };

  const fake: FakeTelegram = {
    url: '',
    token,
    username: 'switchyard_test_bot',
    sent: [],
    webhook: undefined,
    commands: [],
    getUpdatesCalls: 0,
    conflicts: 0,
    down: false,
    message(userId, text, o = {}) {
      const chatId = o.chatId ?? userId;
      const command = /^\/\w+(@\w+)?/.exec(text);
      const update = {
        update_id: nextUpdateId++,
        message: {
          message_id: nextMessageId++,
          from: {
            id: userId,
            is_bot: false,
            first_name: `User ${userId}`,
            language_code: o.language ?? 'en',
          },
          chat:
            (o.chatType ?? 'private') === 'private'
              ? { id: chatId, type: 'private', first_name: `User ${userId}` }
              : { id: chatId, type: 'group', title: 'A group' },
          date: Math.floor(Date.now() / 1000),
          text,
          ...(command ? { entities: [{ offset: 0, length: command[0].length, type: 'bot_command' }] } : {}),
        },
      };
      queue.push(update);
      wake();
      return update;
    },
    async waitForSent(predicate, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (!predicate(fake.sent)) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for messages; sent so far: ${JSON.stringify(fake.sent)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: async () => {
      if (waiter) {
        clearTimeout(waiter.timer);
        waiter.respond(200, { ok: true, result: [] });
      }
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const readJson = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };

  const server = createServer(async (req, res) => {
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
    const body = await readJson(req).catch(() => undefined);
    if (fake.down) return fail(res, 502, 'Bad Gateway');
    if (!match || req.method !== 'POST') return fail(res, 404, 'Not Found');
    if (match[1] !== token) return fail(res, 401, 'Unauthorized');
    if (!body) return fail(res, 400, "Bad Request: can't parse JSON");
    switch (match[2]) {
      case 'getMe':
        return ok(res, {
          id: Number(token.split(':')[0]),
          is_bot: true,
          first_name: 'Switchyard test bot',
          username: fake.username,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        });
      case 'setMyCommands':
        fake.commands = (body.commands as FakeTelegram['commands']) ?? [];
        return ok(res, true);
      case 'setWebhook':
        if (typeof body.url !== 'string' || body.url === '')
          return fail(res, 400, 'Bad Request: bad webhook: URL is empty');
        fake.webhook = {
          url: body.url,
          ...(typeof body.secret_token === 'string' ? { secret_token: body.secret_token } : {}),
        };
        return send(res, 200, { ok: true, result: true, description: 'Webhook was set' });
      case 'deleteWebhook':
        fake.webhook = undefined;
        return send(res, 200, { ok: true, result: true, description: 'Webhook was deleted' });
      case 'getUpdates': {
        fake.getUpdatesCalls++;
        if (fake.webhook)
          return fail(
            res,
            409,
            "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
          );
        const offset = typeof body.offset === 'number' ? body.offset : 0;
        // An offset confirms every update below it: they are gone for good.
        if (offset > 0) queue = queue.filter((u) => u.update_id >= offset);
        if (waiter) {
          const earlier = waiter;
          waiter = undefined;
          clearTimeout(earlier.timer);
          fake.conflicts++;
          earlier.respond(409, {
            ok: false,
            error_code: 409,
            description:
              'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
          });
        }
        const ready = pending(offset);
        const timeout = typeof body.timeout === 'number' ? body.timeout : 0;
        if (ready.length > 0 || timeout <= 0) return ok(res, ready);
        const w: Waiter = {
          offset,
          respond: (status, b) => send(res, status, b),
          timer: setTimeout(() => {
            if (waiter === w) waiter = undefined;
            ok(res, []);
          }, timeout * 1000),
        };
        waiter = w;
        res.on('close', () => {
          if (waiter === w) {
            waiter = undefined;
            clearTimeout(w.timer);
          }
        });
        return;
      }
      case 'sendMessage': {
        if (typeof body.chat_id !== 'number' || typeof body.text !== 'string' || body.text === '')
          return fail(res, 400, 'Bad Request: message text is empty');
        fake.sent.push({
          chat_id: body.chat_id,
          text: body.text,
          ...(typeof body.parse_mode === 'string' ? { parse_mode: body.parse_mode } : {}),
        });
        return ok(res, {
          message_id: nextMessageId++,
          from: {
            id: Number(token.split(':')[0]),
            is_bot: true,
            first_name: 'Switchyard test bot',
            username: fake.username,
          },
          chat: { id: body.chat_id, type: 'private' },
          date: Math.floor(Date.now() / 1000),
          text: body.text,
        });
      }
      default:
        return fail(res, 404, 'Not Found: method not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
