import { accessRole, ErrorCode } from '@switchyard/domain';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodType } from 'zod';
import { authenticate, type Caller } from '../auth/authenticate.js';
import { unstorablePath } from '../db/storable-text.js';
import type { Services } from '../services.js';
import { ApiError } from './api-error.js';
import { MAX_JSON_DEPTH, nestedTooDeep } from './json-depth.js';
import { type RouteDef, WithMessage } from './route.js';
import { crossSiteRefusal } from './same-origin.js';

const CRITICAL_WINDOW_SECONDS = 20 * 60;
const API_WINDOW_SECONDS = 180;

function parse<T>(schema: ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (result.success) return result.data;
  const errors = result.error.issues.map((i) => ({
    path: i.path.map(String).join('.'),
    message: i.message,
  }));
  const summary = errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
  throw new ApiError(400, ErrorCode.invalidRequest, `Invalid ${where}: ${summary}`, errors);
}

async function limit(s: Services, req: FastifyRequest, reply: FastifyReply, route: RouteDef) {
  const { apiRateLimit, criticalRateLimit } = s.config;
  if (route.rateLimit === 'exempt') return;
  if (apiRateLimit > 0) {
    const d = await s.limiter.hit(`api:${req.ip}`, apiRateLimit, API_WINDOW_SECONDS);
    if (!d.allowed) {
      reply.header('retry-after', String(d.retryAfterSeconds));
      throw ApiError.tooManyRequests();
    }
  }
  if (route.rateLimit === 'critical' && criticalRateLimit > 0) {
    const d = await s.limiter.hit(`critical:${req.ip}`, criticalRateLimit, CRITICAL_WINDOW_SECONDS);
    if (!d.allowed) {
      reply.header('retry-after', String(d.retryAfterSeconds));
      throw ApiError.tooManyRequests();
    }
  }
}

async function resolveCaller(s: Services, req: FastifyRequest, route: RouteDef): Promise<Caller | null> {
  if (route.access === 'guest') {
    // Public routes only personalise their answer; a bad credential there means "guest".
    return authenticate(s, req).catch(() => null);
  }
  const caller = await authenticate(s, req);
  if (!caller) throw ApiError.unauthorized();
  if (caller.user.role < accessRole[route.access]) throw ApiError.forbidden();
  return caller;
}

/** Registers the routes table: rate limit -> who -> may they -> validate -> handle -> envelope. */
export function registerRoutes(app: FastifyInstance, s: Services, routes: readonly RouteDef[]): void {
  const raw = routes.filter((r) => r.rawBody);
  if (raw.length > 0) {
    // Signed callbacks: every content type kept as bytes, in a scope of their own.
    app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
      addRoutes(scope, s, raw);
    });
  }
  addRoutes(
    app,
    s,
    routes.filter((r) => !r.rawBody),
  );
}

function addRoutes(app: FastifyInstance, s: Services, routes: readonly RouteDef[]): void {
  for (const r of routes) {
    app.route({
      method: r.method,
      url: r.url,
      bodyLimit: s.config.apiBodyLimit,
      config: { access: r.access },
      handler: async (req, reply) => {
        await limit(s, req, reply, r);
        const caller = await resolveCaller(s, req, r);
        // Cookie sessions and writes only from the console's own origin (http/same-origin.ts); a
        // refused request is never authenticated by the cookie it carried.
        const write = r.method !== 'GET';
        if (caller?.via !== 'access_token' && (write || caller?.via === 'session')) {
          const refusal = crossSiteRefusal(req, { write });
          if (refusal) throw ApiError.forbidden(refusal);
        }
        // Text the database cannot store is refused at the edge, with the field named, rather than
        // failing in the database (PostgreSQL refuses a NUL) or being silently changed.
        for (const [where, value] of [
          ['path', req.params],
          ['query', req.query],
          ['body', req.body],
        ] as const) {
          const field = unstorablePath(value);
          if (field !== undefined)
            throw ApiError.badRequest(`Invalid ${where}: ${field} holds a NUL character or invalid UTF-16`);
        }
        if (nestedTooDeep(req.body))
          throw ApiError.badRequest(`Invalid body: nested deeper than ${MAX_JSON_DEPTH} levels`);
        const params = parse(r.params, req.params, 'path');
        const query = parse(r.query, req.query, 'query');
        const body = r.rawBody ? req.body : parse(r.body, req.body, 'body');
        const result = await r.handler({ s, caller, body, query, params, ip: req.ip, req, reply });
        if (reply.sent) return reply;
        if (result instanceof WithMessage)
          return { success: true, message: result.message, data: result.data };
        return { success: true, message: '', data: result ?? null };
      },
    });
  }
}
