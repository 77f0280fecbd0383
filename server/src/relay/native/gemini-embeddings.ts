import { parseGeminiError } from '../../providers/gemini/errors.js';
import { buildGeminiRequest } from '../../providers/gemini/request.js';
import { parseUpstreamError } from '../../providers/openai/errors.js';
import { readJsonUsage } from '../../providers/openai/json-meter.js';
import { countInput, ESTIMATING_TOKENIZER } from '../../providers/token-counter.js';
import {
  type GeminiEmbedAction,
  geminiEmbedTexts,
  geminiToOpenAiEmbeddings,
  openAiEmbeddingsToGemini,
} from '../../providers/translate/gemini-embeddings.js';
import { TranslationError } from '../../providers/translate/translation-error.js';
import type { Services } from '../../services.js';
import {
  ChannelUnusable,
  protocolOf,
  servesOpenAiEndpoint,
  transportFor,
} from '../channels/channel-transports.js';
import { inboundKey } from '../chat-relay.js';
import { parseJsonBody } from '../inbound/relay-body.js';
import type { RelayReply, RelayRequest } from '../inbound/relay-exchange.js';
import { RelayError, relayErrors } from '../relay-error.js';
import { type Exchange, type RelayCall, relayJsonReply, runRelay } from '../relay-pipeline.js';

// Gemini's embedContent and batchEmbedContents: to a Gemini channel as the client wrote them, or to
// an OpenAI-protocol embedding channel translated to /v1/embeddings and back. Billed on the upstream's
// token count when it gives one (OpenAI does), else on the texts counted by the model's tokenizer.

const GEMINI_PROTOCOL = 'gemini';

function translating<T>(work: () => T): T {
  try {
    return work();
  } catch (err) {
    if (err instanceof TranslationError) throw relayErrors.badRequest(err.message, err.param);
    throw err;
  }
}

function badReply(): RelayError {
  return new RelayError(
    502,
    'upstream_error',
    'upstream_bad_reply',
    'The upstream answered with invalid JSON',
  );
}

export async function relayGeminiEmbeddings(
  s: Services,
  action: GeminiEmbedAction,
  model: string,
  req: RelayRequest,
  reply: RelayReply,
) {
  if (!s.options.current.GeminiAPIEnabled) {
    throw new RelayError(403, 'permission_error', 'api_not_supported', 'The Gemini API is turned off');
  }
  return runRelay(s, inboundKey('gemini', req), req, reply, async () => {
    const { raw, value } = parseJsonBody(req.body);
    const texts = translating(() => geminiEmbedTexts(action, value));
    const call: RelayCall = {
      model,
      maxTokens: undefined,
      n: undefined,
      needsTools: false,
      retryable: true,
      isStream: false,
      estimateOutput: false,
      estimatePrompt: () => countInput(ESTIMATING_TOKENIZER, texts),
      countPrompt: async () => countInput(await s.relay.counter.tokenizer(model), texts),
      unservedBy: (type) =>
        protocolOf(type) === GEMINI_PROTOCOL || servesOpenAiEndpoint(type, 'embeddings')
          ? undefined
          : `No channel for ${model} can serve :${action} (channel type ${type} speaks ${protocolOf(type)})`,
      async prepare(selection, channel): Promise<Exchange> {
        const upstreamModel = selection.upstreamModel;
        if (protocolOf(channel.type) === GEMINI_PROTOCOL) {
          // A batch names the model in every request; after a model mapping they must name the upstream's.
          const body =
            action === 'batchEmbedContents' && upstreamModel !== model
              ? {
                  kind: 'object' as const,
                  value: {
                    ...value,
                    requests: (value.requests as Record<string, unknown>[]).map((r) => ({
                      ...r,
                      model: `models/${upstreamModel}`,
                    })),
                  },
                }
              : { kind: 'json' as const, raw };
          return {
            request: buildGeminiRequest({ channel, action, upstreamModel, body }),
            wholeReply: true,
            parseError: (status, bytes, type) => parseGeminiError(status, bytes, type),
            relay: (ctx) =>
              relayJsonReply(ctx, (bytes) => ({
                body: bytes,
                contentType: 'application/json',
                usage: null,
                text: () => '',
              })),
          };
        }
        const build = transportFor(channel.type)?.openAi;
        if (!build) throw new ChannelUnusable(`channel type ${channel.type} does not serve embeddings`);
        const openAiBody = translating(() => geminiToOpenAiEmbeddings(action, value, upstreamModel));
        const request = await build(
          {
            channel,
            endpoint: 'embeddings',
            upstreamModel,
            body: { kind: 'json', raw: Buffer.from(JSON.stringify(openAiBody)), value: openAiBody },
          },
          s,
        );
        return {
          request,
          wholeReply: true,
          parseError: (status, bytes, type) => parseUpstreamError(status, bytes, type),
          relay: (ctx) =>
            relayJsonReply(ctx, (bytes) => {
              let gemini: Record<string, unknown>;
              try {
                gemini = openAiEmbeddingsToGemini(action, JSON.parse(bytes.toString('utf8')));
              } catch {
                throw badReply();
              }
              return {
                body: Buffer.from(JSON.stringify(gemini)),
                contentType: 'application/json',
                usage: readJsonUsage(bytes),
                text: () => '',
              };
            }),
        };
      },
    };
    return call;
  });
}
