import { providerById } from '@switchyard/domain';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerKeyFromHeaders } from '../../auth/api-keys.js';
import { isConnectionLoss } from '../../db/connection-loss.js';
import type { OpenAiEndpoint } from '../../providers/openai/request.js';
import type { Services } from '../../services.js';
import { countAnthropicTokens, countGeminiTokens, inboundKey, relayChat } from '../chat-relay.js';
import { errorBodyFor, type InboundDialect } from '../dialect-errors.js';
import { relayGeminiEmbeddings } from '../native/gemini-embeddings.js';
import { relayOpenAi } from '../openai-relay.js';
import { RelayError, relayErrors } from '../relay-error.js';
import { priceOf } from '../relay-pipeline.js';
import { type RelayReply, type RelayRequest, relayCorsHeaders } from './relay-exchange.js';
import type { RelayCaller } from './token-auth.js';

/** OpenAI's non-chat endpoints, relayed through the full pipeline (JSON bodies, or streamed uploads). */
const JSON_ENDPOINTS: readonly OpenAiEndpoint[] = [
  'completions',
  'embeddings',
  'moderations',
  'images/generations',
  'audio/speech',
  'rerank',
  'images/edits',
  'images/variations',
  'audio/transcriptions',
  'audio/translations',
];

// A fixed time (November 2023) for `created` in model objects: it has no meaning here, but clients
// expect a number.
const MODEL_CREATED = 1_700_000_000;

function modelObject(s: Services, id: string) {
  const price = s.relay.tables.prices.lookup(id);
  const owner = price ? (providerById(price.channelType)?.name ?? 'unknown') : 'unknown';
  return { id, object: 'model', created: MODEL_CREATED, owned_by: owner };
}

/**
 * Models the key can call: what its group's channels serve (wildcards left out), priced (or served
 * unpriced by option), within its allow-list. A listed model that answers 404 would mislead clients
 * that pick from the list.
 */
function visibleModels(s: Services, caller: RelayCaller): string[] {
  const allowed = caller.allowedModels;
  return s.relay.tables.routing
    .models(caller.group.symbol)
    .filter((m) => !m.endsWith('*') && (!allowed || allowed.has(m)) && priceOf(s, m) !== undefined)
    .sort();
}

/** The model list in the shape of Anthropic's `GET /v1/models`. */
function anthropicModelList(ids: string[]) {
  const createdAt = new Date(MODEL_CREATED * 1000).toISOString();
  const data = ids.map((id) => ({ type: 'model', id, display_name: id, created_at: createdAt }));
  return { data, has_more: false, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null };
}

async function callerOf(s: Services, req: FastifyRequest): Promise<RelayCaller> {
  return s.relay.auth.authenticate(bearerKeyFromHeaders(req.headers), req.ip, s.relay.tables.groups);
}

/** The key's owner and balances as stored now: the authenticator's short cache may predate a settlement. */
async function freshCaller(s: Services, req: FastifyRequest): Promise<RelayCaller> {
  const c = await callerOf(s, req);
  const [token, user] = await Promise.all([s.repos.tokens.byId(c.token.id), s.repos.users.byId(c.user.id)]);
  return { ...c, token: token ?? c.token, user: user ?? c.user };
}

/** OpenAI's billing views: limits of the key, or of the user for an unlimited key. */
async function subscription(s: Services, req: FastifyRequest) {
  const c = await freshCaller(s, req);
  const o = s.options.current;
  const limitQuota = c.token.unlimited_quota
    ? c.user.quota + c.user.used_quota
    : c.token.remain_quota + c.token.used_quota;
  const amount = o.DisplayInCurrencyEnabled ? limitQuota / o.QuotaPerUnit : limitQuota;
  return {
    object: 'billing_subscription',
    has_payment_method: true,
    soft_limit_usd: amount,
    hard_limit_usd: amount,
    system_hard_limit_usd: amount,
    access_until: c.token.expired_time === -1 ? 0 : c.token.expired_time,
  };
}

async function usage(s: Services, req: FastifyRequest) {
  const c = await freshCaller(s, req);
  const o = s.options.current;
  const used = c.token.unlimited_quota ? c.user.used_quota : c.token.used_quota;
  const amount = o.DisplayInCurrencyEnabled ? used / o.QuotaPerUnit : used;
  // OpenAI reports usage in cents.
  return { object: 'list', total_usage: Math.round(amount * 100 * 100) / 100 };
}

/** The dialect a relay route answers errors in (route config), OpenAI's by default. */
function dialectOf(req: FastifyRequest): InboundDialect {
  const config = req.routeOptions?.config as { dialect?: InboundDialect } | undefined;
  return config?.dialect ?? 'openai';
}

function sendRelayError(reply: FastifyReply, err: RelayError) {
  if (err.headers) reply.headers(err.headers);
  return reply.status(err.status).send(errorBodyFor(dialectOf(reply.request), err, String(reply.request.id)));
}

/** Any error of a relay route as the RelayError the client is told; unexpected ones are logged. */
export function asRelayError(err: unknown, log: FastifyBaseLogger): RelayError {
  if (err instanceof RelayError) return err;
  const e = err as Partial<FastifyError>;
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return relayErrors.bodyTooLarge();
  if (e.statusCode && e.statusCode < 500) return relayErrors.badRequest(String(e.message));
  if (isConnectionLoss(err)) {
    // The database went away under the call (a restart, a failover) before anything was sent or
    // charged: a retry on a new connection may succeed.
    log.warn({ err }, 'relay request lost its database connection');
    return new RelayError(
      503,
      'server_error',
      'database_unavailable',
      'The gateway lost its database connection; please retry',
    );
  }
  log.error({ err }, 'relay request failed');
  return new RelayError(500, 'server_error', 'internal_error', 'Internal server error');
}

/** A relay POST route with a body: registered with Fastify, and served by the hot path as well. */
export interface RelayPostRoute {
  path: string;
  dialect: InboundDialect;
  handle(s: Services, req: RelayRequest, reply: RelayReply): Promise<unknown>;
}

/** The relay's POST routes that take a body: JSON, or for some a multipart upload that streams on. */
export const RELAY_POST_ROUTES: readonly RelayPostRoute[] = [
  {
    path: '/v1/chat/completions',
    dialect: 'openai',
    handle: (s, req, reply) => relayChat(s, 'openai', req, reply),
  },
  {
    path: '/v1/responses',
    dialect: 'responses',
    handle: (s, req, reply) => relayChat(s, 'responses', req, reply),
  },
  ...['', '/claude'].map(
    (prefix): RelayPostRoute => ({
      path: `${prefix}/v1/messages`,
      dialect: 'anthropic',
      handle: (s, req, reply) => relayChat(s, 'anthropic', req, reply),
    }),
  ),
  ...JSON_ENDPOINTS.map(
    (endpoint): RelayPostRoute => ({
      path: `/v1/${endpoint}`,
      dialect: 'openai',
      handle: (s, req, reply) => relayOpenAi(s, endpoint, req, reply),
    }),
  ),
];

const GEMINI_ACTIONS: ReadonlySet<string> = new Set([
  'generateContent',
  'streamGenerateContent',
  'countTokens',
  'embedContent',
  'batchEmbedContents',
]);

/** `gemini-2.5-flash:streamGenerateContent` -> model and action. */
function geminiTarget(modelAction: string): { model: string; action: string } {
  const colon = modelAction.lastIndexOf(':');
  const action = colon === -1 ? '' : modelAction.slice(colon + 1);
  if (!GEMINI_ACTIONS.has(action)) {
    throw new RelayError(
      404,
      'invalid_request_error',
      'not_found',
      'Only models/{model}:generateContent, :streamGenerateContent, :countTokens, :embedContent and :batchEmbedContents are served',
    );
  }
  // The router has already percent-decoded the path.
  const model = modelAction.slice(0, colon);
  return { model: model.replace(/^models\//, ''), action };
}

/** Where the relay's routes live: browsers on other origins may call these with their keys. */
export const RELAY_PREFIXES = ['/v1', '/v1beta', '/claude', '/gemini', '/dashboard'] as const;

/**
 * The relay API (/v1, the Anthropic and Gemini native paths, the billing views) in its own
 * plugin: request bodies stay raw bytes so they can pass through unchanged, and every error
 * answers in the shape of the API the route belongs to.
 */
export async function registerRelayRoutes(app: FastifyInstance, s: Services): Promise<void> {
  await app.register(async (relay) => {
    relay.removeAllContentTypeParsers();
    relay.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: s.config.relayBodyLimit },
      (_req, body, done) => done(null, body),
    );
    // Uploads are not buffered: the pipeline reads up to the model field and streams the rest on.
    relay.addContentTypeParser('multipart/form-data', (_req, payload, done) => done(null, payload));

    relay.addHook('onRequest', (_req, reply, done) => {
      for (const [name, value] of relayCorsHeaders()) reply.header(name, value);
      done();
    });
    // Preflights of the relay's own paths only: the management API (/api) is the console's, same
    // origin, and answers no preflight.
    const preflight = async (req: FastifyRequest, reply: FastifyReply) => {
      reply
        .header('access-control-allow-methods', 'GET, POST, PUT, DELETE, OPTIONS')
        .header('access-control-allow-headers', String(req.headers['access-control-request-headers'] ?? '*'))
        .header('access-control-max-age', '86400')
        .status(204)
        .send();
    };
    for (const prefix of RELAY_PREFIXES) relay.options(`${prefix}/*`, preflight);

    relay.setErrorHandler((err: FastifyError, req, reply) => {
      const relayError = asRelayError(err, req.log);
      if (reply.sent || reply.raw.headersSent) {
        reply.raw.end();
        return reply;
      }
      return sendRelayError(reply, relayError);
    });

    for (const route of RELAY_POST_ROUTES) {
      relay.post(route.path, { config: { dialect: route.dialect } }, (req, reply) =>
        route.handle(s, req, reply),
      );
    }
    for (const prefix of ['', '/claude']) {
      relay.post(`${prefix}/v1/messages/count_tokens`, { config: { dialect: 'anthropic' } }, (req, reply) =>
        countAnthropicTokens(s, req, reply),
      );
    }
    const gemini = (
      req: FastifyRequest<{ Params: { '*': string }; Querystring: { alt?: string } }>,
      reply: FastifyReply,
    ) => {
      const { model, action } = geminiTarget(req.params['*']);
      if (action === 'countTokens') return countGeminiTokens(s, req, reply, model);
      if (action === 'embedContent' || action === 'batchEmbedContents')
        return relayGeminiEmbeddings(s, action, model, req, reply);
      return relayChat(s, 'gemini', req, reply, {
        model,
        stream: action === 'streamGenerateContent',
        sse: req.query.alt === 'sse',
      });
    };
    relay.post('/gemini/:version/models/*', { config: { dialect: 'gemini' } }, gemini);
    relay.post('/v1beta/models/*', { config: { dialect: 'gemini' } }, gemini);
    // @google/genai with the gateway's root as base URL and apiVersion v1. OpenAI has no POST under
    // /v1/models, so the paths cannot collide with its GET /v1/models/{id}.
    relay.post('/v1/models/*', { config: { dialect: 'gemini' } }, gemini);

    const geminiModels = async (req: FastifyRequest) => {
      const caller = await s.relay.auth.authenticate(
        inboundKey('gemini', req),
        req.ip,
        s.relay.tables.groups,
      );
      return {
        models: visibleModels(s, caller).map((id) => ({
          name: `models/${id}`,
          displayName: id,
          supportedGenerationMethods: [
            'generateContent',
            'streamGenerateContent',
            'countTokens',
            'embedContent',
            'batchEmbedContents',
          ],
        })),
      };
    };
    relay.get('/v1/models', async (req) => {
      // A Gemini client at the root names its key the Gemini way; it gets Gemini's list.
      if (req.headers['x-goog-api-key'] !== undefined || (req.query as { key?: unknown }).key !== undefined) {
        return geminiModels(req);
      }
      const caller = await callerOf(s, req);
      // Anthropic's SDKs (Claude Code among them) always send anthropic-version.
      if (req.headers['anthropic-version'] !== undefined) return anthropicModelList(visibleModels(s, caller));
      return { object: 'list', data: visibleModels(s, caller).map((id) => modelObject(s, id)) };
    });
    relay.get('/claude/v1/models', { config: { dialect: 'anthropic' } }, async (req) =>
      anthropicModelList(visibleModels(s, await callerOf(s, req))),
    );
    relay.get('/gemini/:version/models', { config: { dialect: 'gemini' } }, geminiModels);
    relay.get('/v1beta/models', { config: { dialect: 'gemini' } }, geminiModels);
    relay.get<{ Params: { id: string } }>('/v1/models/:id', async (req) => {
      const caller = await callerOf(s, req);
      const id = req.params.id;
      if (!visibleModels(s, caller).includes(id)) throw relayErrors.modelNotFound(id);
      return modelObject(s, id);
    });

    for (const prefix of ['', '/v1']) {
      relay.get(`${prefix}/dashboard/billing/subscription`, (req) => subscription(s, req));
      relay.get(`${prefix}/dashboard/billing/usage`, (req) => usage(s, req));
    }
  });
}
