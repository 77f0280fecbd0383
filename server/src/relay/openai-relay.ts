import type { Readable } from 'node:stream';

import { bearerKeyFromHeaders } from '../auth/api-keys.js';
import { parseUpstreamError } from '../providers/openai/errors.js';
import { jsonCompletionText, readJsonUsage } from '../providers/openai/json-meter.js';
import { multipartBoundary } from '../providers/openai/multipart-field.js';
import {
  type InboundBody,
  type OpenAiEndpoint,
  UnsupportedEndpointError,
} from '../providers/openai/request.js';
import { countInput, type Tokenizer } from '../providers/token-counter.js';
import { TranslationError } from '../providers/translate/translation-error.js';
import { ChannelConfigError, type UpstreamRequest } from '../providers/upstream-request.js';
import type { Services } from '../services.js';
import {
  type ChannelTransport,
  ChannelUnusable,
  protocolOf,
  servesOpenAiEndpoint,
  transportFor,
} from './channels/channel-transports.js';
import { peekFormField } from './inbound/multipart-peek.js';
import { parseJsonBody } from './inbound/relay-body.js';
import type { RelayReply, RelayRequest } from './inbound/relay-exchange.js';
import { RelayError, relayErrors } from './relay-error.js';
import {
  type Exchange,
  followClient,
  numberField,
  type RelayCall,
  type RelayOutcome,
  type ReplyContext,
  readyToCount,
  relayEventStream,
  relayJsonReply,
  replyHeaders,
  runRelay,
} from './relay-pipeline.js';
import { clientWantsUsage, openAiPassthrough } from './reply-streams.js';
import { mergeCustomParameter } from './request-policies/custom-parameter.js';
import { refusedPrompt } from './request-policies/safe-keywords.js';

// OpenAI's endpoints other than chat (embeddings, moderations, images, audio, completions,
// rerank): the client's request goes to an OpenAI-protocol channel as it was written, but for the
// model name. Chat-shaped requests take chat-relay.ts, which also translates.

type Json = Record<string, unknown>;

/** Endpoints whose reply is a JSON document the gateway reads usage from. */
const JSON_REPLY: ReadonlySet<OpenAiEndpoint> = new Set([
  'completions',
  'embeddings',
  'moderations',
  'images/generations',
  'images/edits',
  'images/variations',
  'audio/transcriptions',
  'audio/translations',
  'rerank',
]);

/** Endpoints whose request is a multipart/form-data upload, streamed to the upstream. */
const MULTIPART: ReadonlySet<OpenAiEndpoint> = new Set([
  'images/edits',
  'images/variations',
  'audio/transcriptions',
  'audio/translations',
]);

/** What the client sent: a JSON document (kept as bytes) or a streamed upload. */
type Inbound =
  | { kind: 'json'; raw: Buffer; value: Json }
  | { kind: 'multipart'; contentType: string; body: Readable; model: string | undefined };

/** Prompt tokens of a non-chat request by `tok`: the estimate for the reserve, or the real count. */
function promptTokensBy(tok: Tokenizer, endpoint: OpenAiEndpoint, body: Json): number {
  switch (endpoint) {
    case 'audio/speech':
      // Speech is billed per input character, as one-hub does.
      return typeof body.input === 'string' ? [...body.input].length : 0;
    case 'audio/transcriptions':
    case 'audio/translations':
      // Billed on the text that comes back, as one-hub does.
      return 0;
    case 'images/edits':
    case 'images/variations':
    case 'images/generations': {
      const n = numberField(body, 'n') ?? 1;
      return 1000 * Math.max(1, Math.floor(n));
    }
    case 'completions':
      return countInput(tok, body.prompt);
    case 'rerank':
      return countInput(tok, body.query) + countInput(tok, body.documents);
    default:
      return countInput(tok, body.input);
  }
}

/** Reads what the client sent: JSON is parsed (its bytes kept), an upload is read only up to its model field. */
async function readInbound(s: Services, endpoint: OpenAiEndpoint, req: RelayRequest): Promise<Inbound> {
  if (!MULTIPART.has(endpoint)) return { kind: 'json', ...parseJsonBody(req.body) };
  const contentType = String(req.headers['content-type'] ?? '');
  const boundary = multipartBoundary(contentType);
  if (!boundary || !req.body || typeof (req.body as Readable).pipe !== 'function') {
    throw relayErrors.badRequest('This endpoint takes a multipart/form-data upload');
  }
  try {
    const peeked = await peekFormField(req.body as Readable, boundary, 'model', s.config.relayBodyLimit);
    return { kind: 'multipart', contentType, body: peeked.body, model: peeked.value };
  } catch (err) {
    throw relayErrors.badRequest(`The upload could not be read: ${(err as Error).message}`);
  }
}

/** Generated text of a JSON reply: choices, or a transcription's `text`. */
function replyText(raw: Buffer): string {
  const text = jsonCompletionText(raw);
  if (text) return text;
  try {
    const v = JSON.parse(raw.toString('utf8')) as { text?: unknown };
    return typeof v.text === 'string' ? v.text : '';
  } catch {
    return '';
  }
}

/** Relays a whole reply (JSON or binary such as speech audio), reading usage from JSON bodies. */
async function relayWhole(
  endpoint: OpenAiEndpoint,
  ctx: ReplyContext,
  vendor?: { transport: ChannelTransport; model: string; body: Json },
): Promise<RelayOutcome> {
  const { s, reply, response } = ctx;
  const contentType = String(response.headers['content-type'] ?? 'application/json');
  const convert = vendor?.transport.openAiReply;
  if (vendor && convert && JSON_REPLY.has(endpoint)) {
    // A vendor with its own reply shape (Cohere or Jina rerank) answers in the gateway's shape.
    const promptTokens = await ctx.promptTokens();
    return relayJsonReply(ctx, (raw) => {
      let out: ReturnType<typeof convert>;
      try {
        out = convert(raw, {
          endpoint,
          model: vendor.model,
          body: vendor.body,
          promptTokens,
        });
      } catch {
        throw new RelayError(
          502,
          'upstream_error',
          'upstream_bad_reply',
          'The upstream answered with invalid JSON',
        );
      }
      return { body: out.body, contentType: 'application/json', usage: out.usage, text: () => '' };
    });
  }
  if (!JSON_REPLY.has(endpoint)) {
    // Binary or plain replies (speech audio) are streamed through as they arrive.
    reply.hijack();
    const res = reply.raw;
    res.writeHead(response.statusCode, replyHeaders(reply, contentType));
    let firstByteMs = 0;
    const client = followClient(res, response.body);
    await response.body.each({
      data(chunk) {
        if (firstByteMs === 0) firstByteMs = s.clock.nowMs() - ctx.startedMs;
        if (!client.gone && !res.write(chunk)) response.body.pause();
      },
    });
    const counting = readyToCount(ctx, null);
    if (counting) await counting;
    if (!client.gone) res.end();
    return {
      usage: null,
      completionText: () => '',
      firstByteMs,
      clientAborted: client.gone,
      upstreamFailedMidway: false,
    };
  }
  return relayJsonReply(ctx, (raw) => {
    const isJson = contentType.includes('json');
    return {
      body: raw,
      contentType,
      usage: isJson ? readJsonUsage(raw) : null,
      text: () => (isJson ? replyText(raw) : raw.toString('utf8')),
    };
  });
}

/** One OpenAI-shaped, non-chat request through the pipeline. */
export async function relayOpenAi(
  s: Services,
  endpoint: OpenAiEndpoint,
  req: RelayRequest,
  reply: RelayReply,
) {
  return runRelay(s, bearerKeyFromHeaders(req.headers), req, reply, async () => {
    const inbound = await readInbound(s, endpoint, req);
    const fields: Json = inbound.kind === 'json' ? inbound.value : {};
    const model = inbound.kind === 'json' ? fields.model : inbound.model;
    if (typeof model !== 'string' || model.trim() === '')
      throw relayErrors.badRequest('model is required', 'model');
    if (endpoint === 'completions') {
      const prompt = fields.prompt;
      const texts = () => (Array.isArray(prompt) ? prompt : [prompt]).filter((p) => typeof p === 'string');
      const refused = refusedPrompt(s.relay.safety, s.options.current, texts);
      if (refused) throw relayErrors.promptRefused(refused.rule, refused.keyword);
    }
    const stream = fields.stream === true && endpoint === 'completions';
    const call: RelayCall = {
      model,
      maxTokens: numberField(fields, 'max_tokens', 'max_completion_tokens'),
      n: numberField(fields, 'n'),
      needsTools: false,
      retryable: inbound.kind === 'json',
      isStream: stream,
      estimateOutput: endpoint !== 'audio/speech',
      // A channel's pre_cost is about chat messages (their images); other endpoints count their input.
      estimatePrompt: () => promptTokensBy(s.relay.counter.estimator(), endpoint, fields),
      countPrompt: async () => promptTokensBy(await s.relay.counter.tokenizer(model), endpoint, fields),
      unservedBy: (type) =>
        servesOpenAiEndpoint(type, endpoint)
          ? undefined
          : `No channel for ${model} can serve /v1/${endpoint} (channel type ${type} speaks ${protocolOf(type)})`,
      async prepare(selection, channel): Promise<Exchange> {
        const transport = transportFor(channel.type);
        const build = transport?.openAi;
        if (!transport || !build || !servesOpenAiEndpoint(channel.type, endpoint))
          throw new ChannelUnusable(`channel type ${channel.type} does not serve /v1/${endpoint}`);
        let request: UpstreamRequest;
        // The channel's custom parameters join JSON bodies (pre_add or not: these are read as sent).
        const custom = selection.channel.customParameter;
        let body: InboundBody;
        if (inbound.kind === 'json') {
          const value = custom
            ? mergeCustomParameter(inbound.value, custom, custom.preAdd ? model : selection.upstreamModel)
            : inbound.value;
          body = { kind: 'json', raw: custom ? Buffer.from(JSON.stringify(value)) : inbound.raw, value };
        } else {
          body = {
            kind: 'multipart',
            contentType: inbound.contentType,
            body: inbound.body,
            model: inbound.model,
          };
        }
        try {
          request = await build(
            {
              channel,
              endpoint,
              upstreamModel: selection.upstreamModel,
              body,
            },
            s,
          );
        } catch (err) {
          // A body the vendor's format cannot carry (a bad rerank body, speech over its limit).
          if (err instanceof TranslationError) throw relayErrors.badRequest(err.message, err.param);
          throw err instanceof UnsupportedEndpointError || err instanceof ChannelConfigError
            ? new ChannelUnusable(err.message)
            : err;
        }
        const parseError = transport.openAiError ?? parseUpstreamError;
        return {
          request,
          wholeReply: !stream && JSON_REPLY.has(endpoint),
          parseError: (status, raw, contentType) => parseError(status, raw, contentType),
          relay: (ctx) =>
            stream
              ? relayEventStream(ctx, openAiPassthrough(clientWantsUsage(fields)))
              : relayWhole(endpoint, ctx, { transport, model, body: fields }),
        };
      },
    };
    return call;
  });
}
