import { describe, expect, it } from 'vitest';
import { awsUriEncode, signSigV4 } from './sigv4.js';

// Vectors of AWS's published SigV4 test suite (aws-sig-v4-test-suite): example credentials,
// region us-east-1, service "service", 2015-08-30T12:36:00Z, host example.amazonaws.com.
const CREDS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const SCOPE = { region: 'us-east-1', service: 'service', date: new Date('2015-08-30T12:36:00Z') };
const HOST = 'example.amazonaws.com';
const CREDENTIAL = 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request';

function suite(method: string, path: string, query = '', body = '') {
  // The suite signs only host and x-amz-date.
  return signSigV4({ method, host: HOST, path, query, headers: {}, body }, CREDS, SCOPE, {
    contentSha256Header: false,
  });
}

describe('SigV4 against the AWS test suite', () => {
  it('get-vanilla', () => {
    const r = suite('GET', '/');
    expect(r.canonicalRequest).toBe(
      'GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(r.stringToSign).toBe(
      'AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63',
    );
    expect(r.headers.authorization).toBe(
      `${CREDENTIAL}, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31`,
    );
    expect(r.headers['x-amz-date']).toBe('20150830T123600Z');
  });

  it('get-vanilla-query-order-key-case: the query is sorted', () => {
    expect(suite('GET', '/', 'Param2=value2&Param1=value1').signature).toBe(
      'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500',
    );
  });

  it('post-vanilla', () => {
    expect(suite('POST', '/').signature).toBe(
      '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b',
    );
  });

  it('get-utf8: a path segment is percent-encoded as UTF-8', () => {
    expect(suite('GET', '/ሴ').signature).toBe(
      '8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85',
    );
  });
});

describe('SigV4 for Bedrock requests', () => {
  it('signs the wire path encoded once more, the session token and the payload hash', () => {
    const r = signSigV4(
      {
        method: 'POST',
        host: 'bedrock-runtime.us-east-1.amazonaws.com',
        path: '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: '{}',
      },
      { ...CREDS, sessionToken: 'session-token' },
      { region: 'us-east-1', service: 'bedrock', date: new Date('2024-01-02T03:04:05Z') },
    );
    const lines = r.canonicalRequest.split('\n');
    expect(lines[1]).toBe('/model/anthropic.claude-3-5-haiku-20241022-v1%253A0/invoke');
    expect(r.headers['x-amz-security-token']).toBe('session-token');
    expect(r.headers['x-amz-content-sha256']).toBe(
      '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
    );
    expect(r.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20240102\/us-east-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
  });

  it('encodes reserved characters the way AWS does, unlike encodeURIComponent', () => {
    expect(awsUriEncode("a:b/c d!*'()~")).toBe('a%3Ab%2Fc%20d%21%2A%27%28%29~');
  });
});
