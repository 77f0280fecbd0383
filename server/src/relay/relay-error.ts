/**
 * A failure answered to an API client in OpenAI's error shape
 * `{error: {message, type, param, code}}`, with an honest status.
 */
export class RelayError extends Error {
  /** Headers the client is told with the error (an upstream 429's retry-after and x-ratelimit-*). */
  headers: Record<string, string> | undefined;

  constructor(
    readonly status: number,
    readonly type: string,
    readonly code: string | null,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }

  body(requestId: string) {
    return {
      error: {
        message: `${this.message} (request id: ${requestId})`,
        type: this.type,
        param: this.param,
        code: this.code,
      },
    };
  }
}

export const relayErrors = {
  missingKey: () =>
    new RelayError(401, 'invalid_request_error', 'missing_api_key', 'No API key was provided'),
  invalidKey: () => new RelayError(401, 'invalid_request_error', 'invalid_api_key', 'Invalid API key'),
  tokenDisabled: () =>
    new RelayError(403, 'invalid_request_error', 'token_disabled', 'This API key is disabled'),
  tokenExpired: () =>
    new RelayError(403, 'invalid_request_error', 'token_expired', 'This API key has expired'),
  tokenExhausted: () =>
    new RelayError(403, 'insufficient_quota', 'token_exhausted', 'This API key has used up its quota'),
  userDisabled: () =>
    new RelayError(403, 'invalid_request_error', 'user_disabled', 'The account of this API key is disabled'),
  ipNotAllowed: (ip: string) =>
    new RelayError(403, 'invalid_request_error', 'ip_not_allowed', `This API key may not be used from ${ip}`),
  modelNotAllowed: (model: string) =>
    new RelayError(
      403,
      'invalid_request_error',
      'model_not_allowed',
      `This API key may not use the model ${model}`,
      'model',
    ),
  groupUnavailable: (group: string) =>
    new RelayError(
      403,
      'invalid_request_error',
      'group_unavailable',
      `The group ${group} does not exist or is disabled`,
    ),
  pinNotAllowed: () =>
    new RelayError(
      403,
      'invalid_request_error',
      'channel_pin_not_allowed',
      'Only administrators may choose a channel',
    ),
  rateLimited: (retryAfter: number) =>
    new RelayError(
      429,
      'rate_limit_error',
      'rate_limit_exceeded',
      `Rate limit reached; retry in ${retryAfter} s`,
    ),
  bodyTooLarge: () =>
    new RelayError(413, 'invalid_request_error', 'request_too_large', 'The request body is too large'),
  /** A prompt refused by the content check `rule` (SafeToolName) for holding `keyword`. */
  promptRefused: (rule: string, keyword: string) =>
    new RelayError(
      400,
      'invalid_request_error',
      'prompt_refused',
      `The prompt was refused by the ${rule} content check: it contains "${keyword}"`,
      'messages',
    ),
  badRequest: (message: string, param: string | null = null) =>
    new RelayError(400, 'invalid_request_error', 'invalid_request', message, param),
  // 404 like an unknown model: the call cannot succeed until an administrator acts, so SDKs must
  // not retry it (they retry 5xx), and OpenAI answers a model it does not serve with 404.
  unpriced: (model: string) =>
    new RelayError(
      404,
      'invalid_request_error',
      'model_not_priced',
      `The model ${model} has no price set; ask the administrator`,
      'model',
    ),
  insufficientUserQuota: () =>
    new RelayError(
      403,
      'insufficient_quota',
      'insufficient_user_quota',
      'Your balance is too low for this request',
    ),
  insufficientTokenQuota: () =>
    new RelayError(
      403,
      'insufficient_quota',
      'insufficient_token_quota',
      'This API key has too little quota left for this request',
    ),
  /** Channels exist but none can take the call now: worth a retry. */
  noChannel: (group: string, model: string) =>
    new RelayError(
      503,
      'server_error',
      'no_available_channel',
      `No channel is available for model ${model} in group ${group}`,
      'model',
    ),
  /** No channel serves the model in the group at all: a retry cannot help. */
  noChannelAtAll: (group: string, model: string) =>
    new RelayError(
      404,
      'invalid_request_error',
      'model_not_found',
      `The model ${model} does not exist or is not served to group ${group}`,
      'model',
    ),
  modelNotFound: (model: string) =>
    new RelayError(
      404,
      'invalid_request_error',
      'model_not_found',
      `The model ${model} does not exist`,
      'model',
    ),
};
