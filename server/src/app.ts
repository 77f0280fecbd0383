import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import { apiRoutes } from './api/routes.js';
import { registerCompression } from './http/compression.js';
import { guardConnections, markReply, serverOptions } from './http/connection-guard.js';
import { defaultWebDist, registerConsole } from './http/console.js';
import { Drain } from './http/drain.js';
import { installErrorHandler } from './http/error-handler.js';
import { registerHealthRoutes } from './http/health-routes.js';
import { requestLogFields } from './http/log-serializers.js';
import { registerRoutes } from './http/register-routes.js';
import { requestIdOf, requestIdSource } from './http/request-ids.js';
import { answerRouteMiss, apiFamilyOf } from './http/route-miss.js';
import { securityHeaders } from './http/security-headers.js';
import { RealtimeGateway } from './realtime/realtime-gateway.js';
import { HotRelay } from './relay/inbound/hot-relay.js';
import { RELAY_POST_ROUTES, registerRelayRoutes } from './relay/inbound/relay-routes.js';
import type { Services } from './services.js';
import { registerTaskRoutes } from './tasks/task-routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Begun by a stop (SIGTERM): readiness false, `Connection: close` on every request left. */
    drain: Drain;
  }
}

/** Builds the whole HTTP app from wired services; tests call this with their own services. */
export async function buildApp(s: Services): Promise<FastifyInstance> {
  const nextRequestId = requestIdSource();
  let hot: HotRelay | undefined;
  let realtime: RealtimeGateway | undefined;
  let server: Server | undefined;
  const drain = new Drain();
  const limits = { ...s.config.connections, trustedProxies: s.config.trustedProxies };
  const app = Fastify({
    // The relay's POST routes are served before Fastify sees the request (relay/inbound/hot-relay.ts); both
    // share this server's timeouts and per-address cap (http/connection-guard.ts).
    serverFactory: (handler) => {
      const created = createServer(serverOptions(limits), (req, res) => {
        drain.mark(res);
        markReply(req, res);
        if (!hot?.serve(req, res)) handler(req, res);
      });
      server = created;
      // A request with `Upgrade:` reaches this event, not 'request', once anything listens to it:
      // the Realtime API's WebSocket, and any other upgrade answered as a plain request.
      created.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        if (realtime) realtime.upgrade(req, socket, head);
        else socket.destroy();
      });
      guardConnections(created, limits);
      return created;
    },
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
    // A stopping node still serves what arrives on connections it had (with `Connection: close`,
    // http/drain.ts) instead of Fastify's 503.
    return503OnClosing: false,
    genReqId: (req) => requestIdOf(req.headers, nextRequestId),
    // The router's own refusals (a path it cannot percent-decode, a parameter over its length limit)
    // run no hooks: they get the request id and the caller's error shape here.
    frameworkErrors: (err, req, reply) => {
      reply.header('x-request-id', req.id);
      const status = err.statusCode ?? 500;
      const path = req.url.split('?')[0] ?? '';
      const message =
        err.code === 'FST_ERR_BAD_URL' ? `Malformed URL: ${path} is not valid percent-encoding` : err.message;
      answerRouteMiss(reply, apiFamilyOf(path), status, message);
    },
  });

  app.decorate('drain', drain);

  hot = new HotRelay(
    s,
    {
      log: app.log,
      nextRequestId,
      trustedProxies: s.config.trustedProxies,
      bodyLimit: s.config.relayBodyLimit,
    },
    RELAY_POST_ROUTES,
  );

  realtime = new RealtimeGateway(s, {
    log: app.log,
    nextRequestId,
    ipOf: hot.ipOf,
    serveAgain: (socket) => server?.emit('connection', socket),
  });
  // A stop ends the Realtime sessions (after a response in progress) so the server can close.
  const realtimeGateway = realtime;
  app.addHook('preClose', async () => {
    await realtimeGateway.stop();
  });

  // Callback-style hooks: an async hook costs a promise on every relay request.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    for (const [name, value] of securityHeaders(req.protocol)) reply.header(name, value);
    done();
  });

  // A span per API request when tracing is on (relay calls make theirs at their settlement).
  const tracer = s.ops?.tracer;
  if (tracer)
    app.addHook('onResponse', (req, reply, done) => {
      const endMs = Date.now();
      tracer.call({
        requestId: req.id,
        method: req.method,
        route: req.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        startMs: endMs - reply.elapsedTime,
        endMs,
      });
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

  // Liveness, readiness (false from the moment a stop begins) and metrics for balancers and scrapers.
  registerHealthRoutes(app, s, drain);

  await app.register(fastifyCookie, { secret: s.secrets.sessionSecret });
  installErrorHandler(app);
  await registerRelayRoutes(app, s);
  await registerTaskRoutes(app, s);

  // API answers and the console compressed in a scope of their own: the relay's replies (streams,
  // written on the hijacked socket) stay as the upstream sent them.
  let serveConsole: Awaited<ReturnType<typeof registerConsole>>;
  await app.register(async (scope) => {
    await registerCompression(scope);
    registerRoutes(scope, s, apiRoutes);
    serveConsole = await registerConsole(
      scope,
      s.config.webDist ?? defaultWebDist(),
      s.config.basePath,
      () => s.options.current.AnalyticsCode,
    );
  });

  app.setNotFoundHandler((req, reply) => {
    const url = req.url.split('?')[0] ?? '';
    const family = apiFamilyOf(url);
    if (family === 'other' && serveConsole && (req.method === 'GET' || req.method === 'HEAD')) {
      return serveConsole(reply);
    }
    const message =
      family === 'api'
        ? `No such API: ${req.method} ${url}`
        : family === 'relay'
          ? `Invalid URL (${req.method} ${url})`
          : 'Not found';
    return answerRouteMiss(reply, family, 404, message);
  });

  return app;
}
