import { describe, expect, it } from 'vitest';
import { bedrockExceptionName, parseBedrockError } from './errors.js';

describe('Bedrock errors', () => {
  it('reads the message and names the exception from x-amzn-errortype', () => {
    expect(
      parseBedrockError(
        400,
        '{"message":"messages: roles must alternate"}',
        'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/',
      ),
    ).toEqual({
      status: 400,
      message: 'messages: roles must alternate',
      type: 'ValidationException',
      code: 'ValidationException',
      param: null,
    });
  });

  it('reads `Message` and a `__type` naming the exception', () => {
    expect(
      parseBedrockError(
        403,
        '{"__type":"com.amazon.coral.service#AccessDeniedException","Message":"denied"}',
      ),
    ).toMatchObject({ message: 'denied', type: 'AccessDeniedException' });
  });

  it('falls back to the generic parser for a proxy page, keeping the header name', () => {
    const e = parseBedrockError(
      503,
      '<html><title>Service Unavailable</title></html>',
      'ServiceUnavailableException',
    );
    expect(e).toMatchObject({
      status: 503,
      message: 'Service Unavailable',
      type: 'ServiceUnavailableException',
    });
    expect(parseBedrockError(502, '')).toMatchObject({ message: 'upstream returned HTTP 502 Bad Gateway' });
  });

  it('strips namespaces and URL suffixes from exception names', () => {
    expect(bedrockExceptionName('ThrottlingException:http://x')).toBe('ThrottlingException');
    expect(bedrockExceptionName('aws#ValidationException')).toBe('ValidationException');
    expect(bedrockExceptionName('')).toBeNull();
  });
});
