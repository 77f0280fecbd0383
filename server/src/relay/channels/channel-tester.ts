import { ChannelStatus } from '@switchyard/domain';
import type { ChannelRow } from '../../db/queries/channels.js';
import { parseUpstreamError, type UpstreamError } from '../../providers/openai/errors.js';
import {
  customPathsFromPlugin,
  type OpenAiEndpoint,
  parseModelHeaders,
  UnsupportedEndpointError,
} from '../../providers/openai/request.js';
import { TranslationError } from '../../providers/translate/translation-error.js';
import { ChannelConfigError, type UpstreamRequest } from '../../providers/upstream-request.js';
import type { Services } from '../../services.js';
import { translateChatRequest } from '../chat-relay.js';
import { withoutBom } from '../relay-pipeline.js';
import type { ChannelTestRunner } from '../relay-services.js';
import { decideFailure, shouldAutoEnable, shouldDisableForLatency } from '../routing/failure-policy.js';
import {
  type ConnectionSettings,
  decodedReply,
  describeTransportFailure,
  sendUpstream,
} from '../transport/transport.js';
import {
  type ChannelAccess,
  connectionSettings,
  protocolOf,
  servesOpenAiEndpoint,
  transportFor,
  type UpstreamHeaders,
  UpstreamRefused,
} from './channel-transports.js';

export interface ChannelTestResult {
  ok: boolean;
  model: string;
  /** Milliseconds until the whole reply arrived. */
  timeMs: number;
  message: string;
  /** What the test did to the channel's status, if anything. */
  statusChange?: 'disabled' | 'enabled';
}

const TEST_PROMPT = "You just need to output 'hi' next.";
const TEST_TIMEOUT_MS = 60_000;

/** The cheapest request that proves a model answers; undefined for kinds not worth a paid test. */
function testRequest(
  model: string,
  channelType: number,
): { endpoint: OpenAiEndpoint; body: Record<string, unknown> } | undefined {
  if (/embedding/i.test(model)) return { endpoint: 'embeddings', body: { model, input: 'hi' } };
  if (/moderation/i.test(model)) return { endpoint: 'moderations', body: { model, input: 'hi' } };
  // Rerank (Cohere, Jina) and speech on an Azure Speech channel cost a fraction of a chat test.
  if (/rerank/i.test(model)) return { endpoint: 'rerank', body: { model, query: 'hi', documents: ['hi'] } };
  if (protocolOf(channelType) === 'azure-speech')
    return { endpoint: 'audio/speech', body: { model, input: 'hi', voice: 'alloy' } };
  if (/dall-e|gpt-image|tts|whisper|transcribe|^mj_|suno|chirp|kling/i.test(model)) return undefined;
  return {
    endpoint: 'chat/completions',
    body: { model, messages: [{ role: 'user', content: TEST_PROMPT }] },
  };
}

export class UntestableModelError extends Error {}

/**
 * Tests a channel with one small real request, records its response time, and applies the automatic
 * rules when they are switched on: disable on a disabling failure or a response slower than
 * ChannelDisableThreshold, re-enable an auto-disabled channel that answers in time.
 */
export async function testChannel(
  s: Services,
  channel: ChannelRow,
  requestedModel?: string,
): Promise<ChannelTestResult> {
  const model = requestedModel || channel.test_model;
  if (!model) throw new UntestableModelError('Please set a test model first');
  const req = testRequest(model, channel.type);
  if (!req)
    throw new UntestableModelError(`Testing ${model} is not supported; pick a chat or embedding model`);
  const mapping = safeJson(channel.model_mapping) as Record<string, string>;
  const mapped = typeof mapping[model] === 'string' ? mapping[model].replace(/^\+/, '') : model;
  const plugin = safeJson(channel.plugin);
  const access: ChannelAccess = {
    type: channel.type,
    baseUrl: channel.base_url,
    key: (s.secretBox.decrypt(channel.key_sealed).split('\n')[0] ?? '').trim(),
    other: channel.other,
    headers: parseModelHeaders(channel.model_headers),
    paths: customPathsFromPlugin(plugin),
    plugin,
  };
  const connection = connectionSettings(plugin, channel.proxy);
  // The same transport the relay would use: a chat test goes out in the channel's own dialect.
  const entry = transportFor(channel.type);
  const isChat = req.endpoint === 'chat/completions';
  const chatErrors = entry?.chat;
  const parseError: (
    status: number,
    raw: Buffer,
    contentType: string,
    headers?: UpstreamHeaders,
  ) => UpstreamError =
    isChat && chatErrors
      ? (status, raw, contentType, headers) => {
          if (status === 401) chatErrors.refused?.(access, s);
          return chatErrors.parseError(status, raw, contentType, headers);
        }
      : (entry?.openAiError ?? parseUpstreamError);
  let upstream: UpstreamRequest | undefined;
  let refused: UpstreamError | undefined;
  try {
    if (req.endpoint === 'chat/completions' && entry?.chat) {
      const target = entry.chat.dialect(mapped);
      upstream = await entry.chat.build(
        {
          channel: access,
          upstreamModel: mapped,
          body: { kind: 'object', value: translateChatRequest(s, target, req.body, mapped, access) },
          stream: false,
          clientHeaders: {},
        },
        s,
      );
    } else if (
      req.endpoint !== 'chat/completions' &&
      entry?.openAi &&
      servesOpenAiEndpoint(channel.type, req.endpoint)
    ) {
      const raw = Buffer.from(JSON.stringify(req.body));
      upstream = await entry.openAi(
        {
          channel: access,
          endpoint: req.endpoint,
          upstreamModel: mapped,
          body: { kind: 'json', raw, value: req.body },
        },
        s,
      );
    } else {
      throw new UntestableModelError(
        `Channels of type ${channel.type} (${protocolOf(channel.type)}) cannot be tested with ${req.endpoint}`,
      );
    }
  } catch (err) {
    if (
      err instanceof ChannelConfigError ||
      err instanceof UnsupportedEndpointError ||
      err instanceof TranslationError
    ) {
      throw new UntestableModelError(err.message);
    }
    // The credential exchange failed (Vertex): the channel's failure, judged like a refused call.
    if (!(err instanceof UpstreamRefused)) throw err;
    refused = err.error;
  }
  const started = s.clock.nowMs();
  const o = s.options.current;
  let status = 0;
  let failureBody: Buffer | undefined;
  let failureHeaders: UpstreamHeaders | undefined;
  let failureType = '';
  let transport = false;
  let timedOut = false;
  let message = '';
  if (upstream && !refused) {
    // Through the relay's own client, with the channel's CA and its timeouts (a minute unless set).
    const settings: ConnectionSettings = {
      timeouts: { firstByteMs: TEST_TIMEOUT_MS, idleMs: TEST_TIMEOUT_MS, ...connection?.timeouts },
    };
    if (connection?.ca !== undefined) settings.ca = connection.ca;
    if (connection?.proxy) settings.proxy = connection.proxy;
    try {
      const res = decodedReply(await sendUpstream(s.relay.forward, upstream, undefined, settings));
      status = res.statusCode;
      const type = String(res.headers['content-type'] ?? '');
      const body = withoutBom(await res.body.whole(), type);
      if (status >= 400) {
        failureBody = body;
        failureHeaders = res.headers;
        failureType = type;
      } else if (status !== 200) {
        const location = res.headers.location;
        message = `The upstream answered ${status}${location ? ` (a redirect to ${String(location)})` : ''}, which is not an answer of this endpoint`;
      }
    } catch (err) {
      const what = describeTransportFailure(err);
      transport = !what.timedOut;
      timedOut = what.timedOut;
      // The administrator's view: the underlying error's words too (the host names a certificate holds).
      message =
        what.detail && !what.message.includes(what.detail) ? `${what.message}: ${what.detail}` : what.message;
    }
  }
  const timeMs = s.clock.nowMs() - started;
  const now = s.clock.nowSeconds();

  if (!transport && !timedOut && !refused && status === 200) {
    const result: ChannelTestResult = { ok: true, model, timeMs, message: '' };
    let nextStatus = channel.status;
    if (channel.status === ChannelStatus.Enabled && shouldDisableForLatency(timeMs, o)) {
      nextStatus = ChannelStatus.AutoDisabled;
      result.statusChange = 'disabled';
      result.message = `Response took ${(timeMs / 1000).toFixed(2)} s, over the ${o.ChannelDisableThreshold} s limit`;
    } else if (shouldAutoEnable(channel.status, true, timeMs, o)) {
      nextStatus = ChannelStatus.Enabled;
      result.statusChange = 'enabled';
    }
    await s.repos.channels.update(channel.id, { response_time: timeMs, test_time: now, status: nextStatus });
    await s.bus.publish('channels');
    return result;
  }

  const error: UpstreamError =
    refused ??
    (failureBody
      ? parseError(status, failureBody, failureType, failureHeaders)
      : { status, message: message || 'unreachable', type: 'upstream_error', code: null, param: null });
  const unusable = !failureBody && !transport && !timedOut && !refused;
  const decision = decideFailure(
    {
      status: error.status,
      body: { message: error.message, type: error.type, code: error.code, param: error.param },
      isTransportError: transport,
      isTimeout: timedOut,
      channelType: channel.type,
      unusableReply: unusable ? message : undefined,
    },
    o,
  );
  const result: ChannelTestResult = { ok: false, model, timeMs, message: error.message };
  const patch: { test_time: number; status?: number } = { test_time: now };
  if (decision.disable && channel.status === ChannelStatus.Enabled) {
    patch.status = ChannelStatus.AutoDisabled;
    result.statusChange = 'disabled';
  }
  await s.repos.channels.update(channel.id, patch);
  await s.bus.publish('channels');
  return result;
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text || '{}') as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Runs the test over every enabled or auto-disabled channel in the background, one run at a time
 * per process. Returns false when a run is already going.
 */
export class ChannelTestRun implements ChannelTestRunner {
  private running: Promise<void> | undefined;
  lastReport:
    | { startedAt: number; finishedAt: number; results: (ChannelTestResult & { id: number; name: string })[] }
    | undefined;

  /** Takes the services lazily: the run is created while the services object is being built. */
  constructor(private readonly services: () => Services) {}

  private get s(): Services {
    return this.services();
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  start(onError: (err: unknown) => void): boolean {
    if (this.running) return false;
    this.running = this.run()
      .catch(onError)
      .finally(() => {
        this.running = undefined;
      });
    return true;
  }

  /** Waits for the current run, if any (tests and shutdown). */
  async settled(): Promise<void> {
    await this.running;
  }

  private async run(): Promise<void> {
    const startedAt = this.s.clock.nowSeconds();
    const results: (ChannelTestResult & { id: number; name: string })[] = [];
    const channels = (await this.s.repos.channels.allLive()).filter(
      (c) => c.status === ChannelStatus.Enabled || c.status === ChannelStatus.AutoDisabled,
    );
    for (const c of channels) {
      try {
        results.push({ id: c.id, name: c.name, ...(await testChannel(this.s, c)) });
      } catch (err) {
        results.push({
          id: c.id,
          name: c.name,
          ok: false,
          model: c.test_model,
          timeMs: 0,
          message: (err as Error).message,
        });
      }
    }
    this.lastReport = { startedAt, finishedAt: this.s.clock.nowSeconds(), results };
  }
}
