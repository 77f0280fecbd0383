import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { relayCorsHeaders } from '../relay/inbound/relay-exchange.js';
import type { Services } from '../services.js';
import { registerKlingRoutes } from './kling/kling-relay.js';
import { registerMidjourneyRoutes } from './midjourney/mj-relay.js';
import { registerSunoRoutes } from './suno/suno-relay.js';

/** Where the task relays live: API clients on other origins call them with their keys, as /v1. */
export const TASK_PREFIXES = ['/mj', '/mj-fast', '/mj-turbo', '/mj-relax', '/suno', '/kling'] as const;

/**
 * The asynchronous task relays (Midjourney, Suno, Kling), each family in a scope of its own so
 * that its errors answer in its protocol's shape. Bodies arrive as raw bytes, up to the relay's
 * body limit, and are read as JSON by the handlers.
 */
export async function registerTaskRoutes(app: FastifyInstance, s: Services): Promise<void> {
  await app.register(async (tasks) => {
    tasks.removeAllContentTypeParsers();
    tasks.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: s.config.relayBodyLimit },
      (_req, body, done) => done(null, body),
    );
    tasks.addHook('onRequest', (_req, reply, done) => {
      for (const [name, value] of relayCorsHeaders()) reply.header(name, value);
      done();
    });
    const preflight = async (req: FastifyRequest, reply: FastifyReply) => {
      reply
        .header('access-control-allow-methods', 'GET, POST, OPTIONS')
        .header('access-control-allow-headers', String(req.headers['access-control-request-headers'] ?? '*'))
        .header('access-control-max-age', '86400')
        .status(204)
        .send();
    };
    for (const prefix of TASK_PREFIXES) tasks.options(`${prefix}/*`, preflight);
    await tasks.register(async (scope) => registerMidjourneyRoutes(scope, s));
    await tasks.register(async (scope) => registerSunoRoutes(scope, s));
    await tasks.register(async (scope) => registerKlingRoutes(scope, s));
  });
}
