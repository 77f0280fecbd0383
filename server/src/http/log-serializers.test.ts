import { describe, expect, it } from 'vitest';
import { maskSecretParams } from './log-serializers.js';

describe('maskSecretParams', () => {
  it('masks key parameters wherever they sit and keeps the rest', () => {
    expect(maskSecretParams('/v1beta/models/m:streamGenerateContent?alt=sse&key=sk-abc#x')).toBe(
      '/v1beta/models/m:streamGenerateContent?alt=sse&key=[Redacted]#x',
    );
    expect(maskSecretParams('/gemini/v1/models/m:generateContent?key=sk-abc&alt=sse')).toBe(
      '/gemini/v1/models/m:generateContent?key=[Redacted]&alt=sse',
    );
    expect(maskSecretParams('/x?api_key=1&monkey=2')).toBe('/x?api_key=[Redacted]&monkey=2');
    expect(maskSecretParams('/v1/chat/completions')).toBe('/v1/chat/completions');
  });
});
