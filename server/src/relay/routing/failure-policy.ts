import { ChannelStatus, type OptionValues } from '@switchyard/domain';

/** The OpenAI-style `error` object of an upstream reply, when it had one. */
export interface UpstreamErrorBody {
  message?: string;
  type?: string;
  code?: string | number | null;
  param?: string | null;
}

export interface UpstreamFailure {
  /** HTTP status; 0 when no response arrived. */
  status: number;
  body?: UpstreamErrorBody;
  /** The reply body as text when it was not an OpenAI-style error (an HTML page, plain text). */
  text?: string;
  /** Connection refused or reset, DNS, TLS: no usable HTTP response. */
  isTransportError: boolean;
  /** Our own deadline passed before the upstream answered. */
  isTimeout: boolean;
  channelType: number;
  /** Our own fault (bad request body, no quota, ...): never the channel's. */
  isLocal?: boolean;
  /**
   * An answer the endpoint does not define (a redirect, 204, any status but its success) or a
   * body that cannot be read (an unknown or broken content-encoding): why, in words.
   */
  unusableReply?: string;
}

export interface FailureDecision {
  /** Try another channel (the caller also needs budget left and no byte sent to the client yet). */
  retry: boolean;
  /** Freeze this (channel, model) for RetryCooldownSeconds. */
  freeze: boolean;
  /** Auto-disable the channel (status 3). */
  disable: boolean;
  /** Why, in words fit for a log line or a "channel disabled" notice. */
  reason: string;
}

export type FailurePolicyOptions = Pick<
  OptionValues,
  'AutomaticDisableChannelEnabled' | 'DisableChannelKeywords' | 'RetryCooldownSeconds'
>;

const GEMINI_CHANNEL_TYPE = 25;

// Upstream 400s that blame the account, not the request, so another channel may succeed.
const RETRYABLE_400_MESSAGES = [
  'your credit balance is too low',
  'operation not allowed',
  'api key not valid',
];

// Gateway timeouts: the upstream may still be working (and billing) on the request, so it is not re-sent.
const NO_RETRY_STATUSES = new Set([408, 504, 524]);

const DISABLING_CODES = new Set(['invalid_api_key', 'account_deactivated', 'billing_not_active']);
const DISABLING_TYPES = new Set([
  'insufficient_quota',
  'authentication_error',
  'permission_error',
  'forbidden',
]);

/** The `DisableChannelKeywords` option as lowercase lines, blanks dropped. */
export function parseDisableKeywords(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const keyword = line.trim().toLowerCase();
    if (keyword !== '') out.push(keyword);
  }
  return out;
}

function messageOf(failure: UpstreamFailure): string {
  return failure.body?.message ?? failure.text ?? '';
}

/** Why the failure means the channel's account is unusable, or undefined. 429 is never such a reason. */
function disableReason(failure: UpstreamFailure, keywordsText: string): string | undefined {
  if (
    failure.status === 429 ||
    failure.isTransportError ||
    failure.isTimeout ||
    failure.unusableReply !== undefined
  )
    return undefined;
  if (failure.status === 401) return 'upstream answered 401 (unauthorized)';
  if (failure.status === 403 && failure.channelType === GEMINI_CHANNEL_TYPE)
    return 'upstream answered 403 on a Gemini channel';
  const body = failure.body;
  const code = body?.code === undefined || body.code === null ? '' : String(body.code).toLowerCase();
  if (DISABLING_CODES.has(code)) return `upstream error code ${code}`;
  const type = (body?.type ?? '').toLowerCase();
  if (DISABLING_TYPES.has(type)) return `upstream error type ${type}`;
  if ((body?.param ?? '').toUpperCase() === 'PERMISSIONDENIED')
    return 'upstream error param PERMISSIONDENIED';
  const message = messageOf(failure).toLowerCase();
  if (message !== '') {
    const hit = parseDisableKeywords(keywordsText).find((k) => message.includes(k));
    if (hit !== undefined) return `upstream message contains "${hit}"`;
  }
  return undefined;
}

function retryRule(failure: UpstreamFailure): { retry: boolean; channelFault: boolean; reason: string } {
  if (failure.isTimeout) return { retry: false, channelFault: true, reason: 'upstream timed out' };
  if (failure.isTransportError)
    return { retry: true, channelFault: true, reason: 'could not reach the upstream' };
  if (failure.unusableReply !== undefined)
    return { retry: true, channelFault: true, reason: failure.unusableReply };
  const s = failure.status;
  if (s === 429) return { retry: true, channelFault: true, reason: 'upstream rate limit (429)' };
  if (s === 0) return { retry: true, channelFault: true, reason: 'no response from the upstream' };
  if (s >= 200 && s < 300)
    return { retry: false, channelFault: false, reason: `upstream error inside a ${s} reply` };
  if (NO_RETRY_STATUSES.has(s))
    return { retry: false, channelFault: true, reason: `upstream timeout status ${s}` };
  if (s === 400) {
    const message = messageOf(failure).toLowerCase();
    const hit = RETRYABLE_400_MESSAGES.find((m) => message.includes(m));
    return hit
      ? { retry: true, channelFault: true, reason: `upstream 400 blaming the account ("${hit}")` }
      : { retry: false, channelFault: false, reason: 'upstream rejected the request (400)' };
  }
  return { retry: true, channelFault: true, reason: `upstream status ${s}` };
}

/**
 * What to do after one failed upstream attempt: retry, freeze, auto-disable. Pure: the caller
 * applies it, and alone knows whether a byte already reached the client (then no retry) or the
 * channel was pinned (no retry either).
 */
export function decideFailure(failure: UpstreamFailure, options: FailurePolicyOptions): FailureDecision {
  if (failure.isLocal) return { retry: false, freeze: false, disable: false, reason: 'local error' };
  const rule = retryRule(failure);
  const cause = options.AutomaticDisableChannelEnabled
    ? disableReason(failure, options.DisableChannelKeywords)
    : undefined;
  const disable = cause !== undefined;
  return {
    retry: rule.retry,
    freeze: options.RetryCooldownSeconds > 0 && (rule.channelFault || disable),
    disable,
    reason: cause ?? rule.reason,
  };
}

export type LatencyOptions = Pick<OptionValues, 'ChannelDisableThreshold' | 'AutomaticDisableChannelEnabled'>;

/**
 * A channel test slower than `ChannelDisableThreshold` seconds disables the channel, but only when
 * auto-disable is on (one-hub's test-all ignores that switch); 0 means never.
 */
export function shouldDisableForLatency(responseMs: number, options: LatencyOptions): boolean {
  const threshold = options.ChannelDisableThreshold;
  return options.AutomaticDisableChannelEnabled && threshold > 0 && responseMs > threshold * 1000;
}

export type AutoEnableOptions = Pick<
  OptionValues,
  'AutomaticEnableChannelEnabled' | 'ChannelDisableThreshold'
>;

/**
 * Only a channel the system disabled (status 3) comes back on its own, after a successful test
 * within the threshold; a manually disabled one (2) waits for an admin.
 */
export function shouldAutoEnable(
  channelStatus: number,
  testOk: boolean,
  responseMs: number,
  options: AutoEnableOptions,
): boolean {
  if (channelStatus !== ChannelStatus.AutoDisabled || !options.AutomaticEnableChannelEnabled || !testOk)
    return false;
  const threshold = options.ChannelDisableThreshold;
  return threshold <= 0 || responseMs <= threshold * 1000;
}
