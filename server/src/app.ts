import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import { apiRoutes } from './api/routes.js';
import { defaultWebDist, registerConsole } from './http/console.js';
import { installErrorHandler } from './http/error-handler.js';
import { requestLogFields } from './http/log-serializers.js';
import { registerRoutes } from './http/register-routes.js';
import { requestIdSource } from './http/request-ids.js';
import { registerRelayRoutes } from './relay/relay-routes.js';
import type { Services } from './services.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** Builds the whole HTTP app from wired services; tests call this with their own services. */
export async function buildApp(s: Services): Promise<FastifyInstance> {
  const nextRequestId = requestIdSource();
  const app = Fastify({
    logger: {
      level: s.config.logLevel,
      redact: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-api-key"]',
        'req.headers["x-goog-api-key"]',
        'res.headers["set-cookie"]',
      ],
      // Gemini clients may put their key in the URL (`?key=`); it never reaches a log line.
      serializers: { req: requestLogFields },
    },
    trustProxy: s.config.trustedProxies.length > 0 ? s.config.trustedProxies : false,
    bodyLimit: s.config.relayBodyLimit,
    routerOptions: { ignoreTrailingSlash: true },
    requestIdHeader: false,
    // A client-supplied id is kept only when it looks like one, so logs cannot be forged with it.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
    },
  });

  // Callback-style hooks: an async hook costs a promise on every relay request.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });

  // Every /api route must come from the policy table; one registered any other way fails start-up.
  app.addHook('onRoute', (opts) => {
    const url = opts.url ?? '';
    if (
      (url === '/api' || url.startsWith('/api/')) &&
      !(opts.config as { access?: string } | undefined)?.access
    ) {
      throw new Error(`${String(opts.method)} ${url} is not in the routes table (server/src/api/routes.ts)`);
    }
  });

  await app.register(fastifyCookie, { secret: s.secrets.sessionSecret });
  installErrorHandler(app);
  registerRoutes(app, s, apiRoutes);
  await registerRelayRoutes(app, s);

  const serveConsole = await registerConsole(app, s.config.webDist ?? defaultWebDist(), s.config.basePath);

  app.setNotFoundHandler((req, reply) => {
    const url = req.url.split('?')[0] ?? '';
    if (url === '/api' || url.startsWith('/api/')) {
      return reply
        .status(404)
        .send({ success: false, message: `No such API: ${req.method} ${url}`, code: 'not_found' });
    }
    if (url === '/v1' || url.startsWith('/v1/')) {
      return reply.status(404).send({
        error: {
          message: `Invalid URL (${req.method} ${url})`,
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      });
    }
    if (serveConsole && (req.method === 'GET' || req.method === 'HEAD')) return serveConsole(reply);
    return reply.status(404).type('text/plain').send('Not found');
  });

  return app;
}
