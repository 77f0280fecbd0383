import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayProcess, RootSession } from '../test/gateway-process.js';

// grammY and the tables it brings cost a node memory it keeps for its life: a node loads them only
// once a bot token is set. The gateway runs as a process of its own with a module-resolution hook
// that reports each grammY module it loads.

const HOOK = `export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.includes('/node_modules/grammy/')) process.stderr.write('grammy-loaded ' + r.url + '\\n');
  return r;
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(
  `data:text/javascript,${encodeURIComponent(HOOK)}`,
)});`;

let node: GatewayProcess;
let closedApi: ReturnType<typeof createServer>;

beforeAll(async () => {
  // A Bot API that refuses every connection: the bot, once started, fails and retries quietly.
  closedApi = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => closedApi.listen(0, '127.0.0.1', resolve));
  const address = closedApi.address();
  const apiUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  node = await GatewayProcess.start({
    env: {
      NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(REGISTER)}`,
      TELEGRAM_API_URL: apiUrl,
    },
  });
}, 120_000);

afterAll(async () => {
  await node?.dispose();
  await new Promise((resolve) => closedApi?.close(resolve));
});

describe('the Telegram bot module', () => {
  it('is not loaded by a node without a bot token, and is once a token is set', async () => {
    const root = await RootSession.open(node.origin);
    // Serving, with its options loaded and the bot applied (no token): nothing of grammY.
    expect(node.log).not.toContain('grammy-loaded');
    await root.call('PUT', '/api/option/', {
      key: 'TelegramBotToken',
      value: '999:AAThisTokenIsNotKnownToTheFakeApi_x',
    });
    const deadline = Date.now() + 20_000;
    while (!node.log.includes('grammy-loaded') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(node.log).toContain('grammy-loaded');
  }, 60_000);
});
