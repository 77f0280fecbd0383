import { describe, expect, it } from 'vitest';
import { geminiErrorBody, geminiErrorFromObject, geminiStatusName, parseGeminiError } from './errors.js';

describe('parseGeminiError', () => {
  it('reads the Google error body with its ErrorInfo reason', () => {
    const body = JSON.stringify({
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
          },
        ],
      },
    });
    expect(parseGeminiError(400, body)).toEqual({
      status: 400,
      message: 'API key not valid. Please pass a valid API key.',
      type: 'INVALID_ARGUMENT',
      code: 'API_KEY_INVALID',
      param: null,
    });
  });

  it('uses the status as code without details, and reads the one-element array form', () => {
    const error = { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' };
    expect(parseGeminiError(429, JSON.stringify([{ error }]))).toMatchObject({
      type: 'RESOURCE_EXHAUSTED',
      code: 'RESOURCE_EXHAUSTED',
    });
    expect(geminiErrorFromObject({ candidates: [] })).toBeNull();
  });

  it('falls back to the generic parser for other bodies', () => {
    expect(parseGeminiError(503, 'upstream connect error')).toMatchObject({
      status: 503,
      message: 'upstream connect error',
    });
  });
});

describe('geminiErrorBody', () => {
  it('writes Google statuses, keeping one that already is', () => {
    expect(geminiErrorBody({ status: 429, message: 'slow down' })).toEqual({
      error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED' },
    });
    expect(geminiErrorBody({ status: 400, message: 'x', type: 'FAILED_PRECONDITION' }).error.status).toBe(
      'FAILED_PRECONDITION',
    );
    expect(geminiErrorBody({ status: 401, message: 'x', type: 'authentication_error' }).error.status).toBe(
      'UNAUTHENTICATED',
    );
    expect(geminiStatusName(502)).toBe('INTERNAL');
  });
});
