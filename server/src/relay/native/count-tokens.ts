import type { FastifyBaseLogger } from 'fastify';
import { buildAnthropicRequest } from '../../providers/anthropic/request.js';
import { buildGeminiRequest } from '../../providers/gemini/request.js';
import type { UpstreamRequest } from '../../providers/upstream-request.js';
import type { Services } from '../../services.js';
import { protocolOf } from '../channels/channel-transports.js';
import type { RelayCaller } from '../inbound/token-auth.js';
import { decodedReply, sendUpstream } from '../transport/transport.js';

// Anthropic's count_tokens and Gemini's countTokens answered by a channel of that protocol when the
// model has one: only the provider's tokenizer gives the number its bill will use. The gateway's
// own estimate is the fallback, and the reply says which it is (TOKEN_COUNT_HEADER).

export const TOKEN_COUNT_HEADER = 'x-switchyard-token-count';

/** Channels tried before falling back to the estimate. */
const MAX_CHANNELS = 3;

export interface NativeCountInput {
  protocol: 'anthropic' | 'gemini';
  caller: RelayCaller;
  model: string;
  /** The client's body, parsed, and its bytes. */
  value: Record<string, unknown>;
  raw: Buffer;
  clientVersion?: string;
  clientBeta?: string;
  log: FastifyBaseLogger;
}

function requestFor(
  x: NativeCountInput,
  channel: Parameters<typeof buildGeminiRequest>[0]['channel'],
  upstreamModel: string,
): UpstreamRequest {
  if (x.protocol === 'anthropic') {
    return buildAnthropicRequest({
      channel,
      endpoint: 'messages/count_tokens',
      upstreamModel,
      body:
        upstreamModel === x.model
          ? { kind: 'json', raw: x.raw, value: x.value }
          : { kind: 'object', value: { ...x.value, model: upstreamModel } },
      clientVersion: x.clientVersion,
      clientBeta: x.clientBeta,
    });
  }
  const wrapped = (x.value.generateContentRequest ?? x.value.generate_content_request) as
    | Record<string, unknown>
    | undefined;
  // The wrapped request names the model too; after a model mapping it must name the upstream's.
  const body =
    wrapped && upstreamModel !== x.model
      ? {
          kind: 'object' as const,
          value: { generateContentRequest: { ...wrapped, model: `models/${upstreamModel}` } },
        }
      : { kind: 'json' as const, raw: x.raw };
  return buildGeminiRequest({ channel, action: 'countTokens', upstreamModel, body });
}

/**
 * The upstream's own count as its JSON reply, or undefined when no channel of the protocol serves
 * the model for the caller's group or none answered 200 (then the caller estimates).
 */
export async function nativeTokenCount(s: Services, x: NativeCountInput): Promise<unknown | undefined> {
  const r = s.relay;
  const tried = new Set<number>();
  for (let i = 0; i < MAX_CHANNELS; i++) {
    const selection = await r.selector.select({
      group: x.caller.group.symbol,
      model: x.model,
      exclude: tried,
      needsTools: false,
      now: s.clock.nowMs(),
    });
    if (!selection) return undefined;
    tried.add(selection.channel.id);
    if (protocolOf(selection.channel.type) !== x.protocol) continue;
    const access = r.access.get(selection.channel);
    try {
      const request = requestFor(x, access, selection.upstreamModel);
      const reply = decodedReply(await sendUpstream(r.forward, request, undefined, access.connection));
      const body = await reply.body.whole();
      if (reply.statusCode === 200) return JSON.parse(body.toString('utf8'));
      x.log.warn({ channel: selection.channel.id, status: reply.statusCode }, 'token count refused upstream');
    } catch (err) {
      x.log.warn({ err, channel: selection.channel.id }, 'token count failed upstream');
    }
  }
  return undefined;
}
