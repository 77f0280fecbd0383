import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { Pool } from 'undici';

// The bare proxy: Fastify + undici written the plain way, the yardstick the gateway must beat.
// `Pool.request()` then `reply.send()`: the JSON body is parsed by Fastify and serialised again,
// a JSON reply is buffered, an event stream is streamed. No auth, routing, billing or logging.

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    upstream: { type: 'string' },
    key: { type: 'string', default: 'sk-bench' },
  },
});

const pool = new Pool(String(values.upstream));
const app = Fastify();

app.get('/__ping', async () => 'ok');

app.post('/v1/chat/completions', async (req, reply) => {
  const res = await pool.request({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${values.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(req.body),
  });
  const type = String(res.headers['content-type'] ?? 'application/json');
  reply.code(res.statusCode).header('content-type', type);
  if (type.startsWith('text/event-stream')) return reply.send(res.body);
  return reply.send(Buffer.from(await res.body.arrayBuffer()));
});

await app.listen({ port: Number(values.port), host: '127.0.0.1' });
process.send?.('ready');
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
