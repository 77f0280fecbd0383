import { describe, expect, it } from 'vitest';
import {
  anthropicErrorBody,
  anthropicErrorFromObject,
  anthropicErrorType,
  parseAnthropicError,
} from './errors.js';

describe('parseAnthropicError', () => {
  it('reads the Anthropic error body', () => {
    const body = JSON.stringify({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
      request_id: 'req_1',
    });
    expect(parseAnthropicError(401, body)).toEqual({
      status: 401,
      message: 'invalid x-api-key',
      type: 'authentication_error',
      code: null,
      param: null,
    });
  });

  it('keeps the credit-balance message the failure policy retries on', () => {
    const body = Buffer.from(
      JSON.stringify({
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'Your credit balance is too low to access the Anthropic API.',
        },
      }),
    );
    expect(parseAnthropicError(400, body).message).toMatch(/credit balance is too low/);
  });

  it('falls back to the generic parser for HTML and other shapes', () => {
    expect(parseAnthropicError(502, '<html><title>502 Bad Gateway</title></html>', 'text/html').message).toBe(
      '502 Bad Gateway',
    );
    expect(parseAnthropicError(500, '{"error":{"message":"boom","type":"server_error"}}')).toMatchObject({
      message: 'boom',
      type: 'server_error',
    });
    expect(parseAnthropicError(529, '')).toMatchObject({ message: 'upstream returned HTTP 529' });
  });

  it('reads a stream error event payload', () => {
    expect(
      anthropicErrorFromObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ).toEqual({
      message: 'Overloaded',
      type: 'overloaded_error',
      code: null,
      param: null,
    });
    expect(anthropicErrorFromObject({ type: 'message_stop' })).toBeNull();
  });
});

describe('anthropicErrorBody', () => {
  it('keeps Anthropic types and maps others by status', () => {
    expect(anthropicErrorBody({ status: 429, message: 'slow down', type: 'rate_limit_error' })).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down' },
    });
    expect(
      anthropicErrorBody({ status: 401, message: 'bad key', type: 'invalid_request_error' }).error.type,
    ).toBe('invalid_request_error');
    expect(anthropicErrorBody({ status: 403, message: 'no', type: 'insufficient_quota' }).error.type).toBe(
      'permission_error',
    );
    expect(anthropicErrorType(529)).toBe('overloaded_error');
    expect(anthropicErrorType(502)).toBe('api_error');
    expect(anthropicErrorType(422)).toBe('invalid_request_error');
  });
});
