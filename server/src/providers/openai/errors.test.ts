import { describe, expect, it } from 'vitest';
import { errorFromObject, MAX_ERROR_MESSAGE_LENGTH, parseUpstreamError } from './errors.js';

describe('parseUpstreamError', () => {
  it('reads OpenAI error bodies', () => {
    const body = JSON.stringify({
      error: {
        message:
          'Incorrect API key provided: sk-abc***. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
    expect(parseUpstreamError(401, Buffer.from(body), 'application/json')).toEqual({
      status: 401,
      message:
        'Incorrect API key provided: sk-abc***. You can find your API key at https://platform.openai.com/account/api-keys.',
      type: 'invalid_request_error',
      code: 'invalid_api_key',
      param: null,
    });
    const quota = parseUpstreamError(
      429,
      '{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}',
    );
    expect(quota).toMatchObject({ status: 429, type: 'insufficient_quota', code: 'insufficient_quota' });
    const param = parseUpstreamError(
      400,
      '{"error":{"message":"bad","type":"invalid_request_error","param":"messages","code":null}}',
    );
    expect(param.param).toBe('messages');
  });

  it('reads vendor variants', () => {
    // Azure sends numeric-looking codes, sometimes as numbers.
    expect(
      parseUpstreamError(
        429,
        '{"error":{"code":429,"message":"Rate limit is exceeded. Try again in 2 seconds."}}',
      ),
    ).toEqual({
      status: 429,
      message: 'Rate limit is exceeded. Try again in 2 seconds.',
      type: 'upstream_error',
      code: '429',
      param: null,
    });
    expect(
      parseUpstreamError(
        400,
        '[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]',
      ),
    ).toMatchObject({
      message: 'API key not valid.',
      type: 'INVALID_ARGUMENT',
      code: '400',
    });
    expect(parseUpstreamError(401, '{"detail":"Invalid API key"}').message).toBe('Invalid API key');
    expect(
      parseUpstreamError(
        422,
        '{"detail":[{"loc":["body","query"],"msg":"field required"},{"msg":"bad top_n"}]}',
      ).message,
    ).toBe('field required; bad top_n');
    expect(parseUpstreamError(403, '{"error":"Forbidden","message":"Key disabled"}')).toMatchObject({
      message: 'Key disabled',
      code: null,
    });
    expect(
      parseUpstreamError(402, '{"code":"insufficient_balance","message":"Insufficient Balance"}'),
    ).toMatchObject({
      message: 'Insufficient Balance',
      code: 'insufficient_balance',
    });
  });

  it('cleans HTML pages and plain text, and truncates', () => {
    const html =
      '<html>\n<head><title>502 Bad Gateway</title><style>body{color:red}</style></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx &amp; friends</center>\n</body>\n</html>';
    expect(parseUpstreamError(502, html, 'text/html').message).toBe('502 Bad Gateway nginx & friends');
    const cf =
      '<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head><body><p>Sorry, you have been blocked</p></body></html>';
    expect(parseUpstreamError(403, cf).message).toBe(
      'Attention Required! | Cloudflare: Sorry, you have been blocked',
    );
    expect(parseUpstreamError(500, 'upstream connect error\n  or disconnect').message).toBe(
      'upstream connect error or disconnect',
    );
    const long = parseUpstreamError(500, 'x'.repeat(5000));
    expect(long.message.length).toBe(MAX_ERROR_MESSAGE_LENGTH);
    expect(long.message.endsWith('…')).toBe(true);
    expect(parseUpstreamError(503, '')).toEqual({
      status: 503,
      message: 'upstream returned HTTP 503 Service Unavailable',
      type: 'upstream_error',
      code: null,
      param: null,
    });
    expect(parseUpstreamError(500, '{"broken json').message).toBe('{"broken json');
  });
});

describe('errorFromObject', () => {
  it('returns null for bodies that are not errors', () => {
    expect(errorFromObject({ id: 'chatcmpl-1', choices: [] })).toBeNull();
    expect(errorFromObject({ message: 'hello' })).toBeNull();
    expect(errorFromObject(null)).toBeNull();
    expect(errorFromObject([])).toBeNull();
  });

  it('reads a Responses stream error event', () => {
    expect(errorFromObject({ type: 'error', code: 'server_error', message: 'boom', param: null })).toEqual({
      message: 'boom',
      type: 'upstream_error',
      code: 'server_error',
      param: null,
    });
  });
});
