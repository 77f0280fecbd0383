import { describe, expect, it } from 'vitest';
import { defaultPrices } from './default-prices.js';
import { providerById } from './providers.js';
import { EXTRA_RATIO_KEYS } from './schemas/price.js';

const price = (model: string) => {
  const p = defaultPrices.find((x) => x.model === model);
  if (!p) throw new Error(`no default price for ${model}`);
  return p;
};

describe('default prices', () => {
  it('has no duplicate model', () => {
    const models = defaultPrices.map((p) => p.model);
    const dupes = models.filter((m, i) => models.indexOf(m) !== i);
    expect(dupes).toEqual([]);
  });

  it('uses only channel types of the catalog', () => {
    for (const p of defaultPrices) expect(providerById(p.channel_type), p.model).toBeDefined();
  });

  it('has finite, non-negative ratios and extra ratios', () => {
    for (const p of defaultPrices) {
      expect(['tokens', 'times']).toContain(p.type);
      for (const r of [p.input, p.output, ...Object.values(p.extra_ratios ?? {})]) {
        expect(Number.isFinite(r) && r >= 0, p.model).toBe(true);
      }
      if (p.type === 'times') expect(p.output, p.model).toBe(0);
    }
  });

  it('uses only known extra-ratio keys', () => {
    const known: ReadonlySet<string> = new Set(EXTRA_RATIO_KEYS);
    for (const p of defaultPrices) {
      for (const k of Object.keys(p.extra_ratios ?? {})) expect(known.has(k), `${p.model}: ${k}`).toBe(true);
    }
  });

  it('converts list prices at ratio = USD per 1M / 2', () => {
    expect(price('gpt-4o')).toMatchObject({ type: 'tokens', channel_type: 1, input: 1.25, output: 5 });
    expect(price('gpt-4o-mini')).toMatchObject({ input: 0.075, output: 0.3 });
    expect(price('gpt-5')).toMatchObject({ input: 0.625, output: 5 });
    expect(price('gpt-4.1')).toMatchObject({ input: 1, output: 4 });
    expect(price('claude-sonnet-4-5')).toMatchObject({ channel_type: 14, input: 1.5, output: 7.5 });
    expect(price('gemini-2.5-pro')).toMatchObject({ channel_type: 25, input: 0.625, output: 5 });
    expect(price('deepseek-chat')).toMatchObject({ channel_type: 28, input: 0.14, output: 0.21 });
    expect(price('text-embedding-3-small').input).toBe(0.01);
    expect(price('omni-moderation-latest')).toMatchObject({ input: 0, output: 0 });
  });

  it('prices images so that one standard image costs its list price', () => {
    // 1000 × size factor prompt tokens at the input ratio, in quota units of $0.000002.
    const usd = (model: string, factor: number) => 1000 * factor * price(model).input * 0.000002;
    expect(usd('dall-e-2', 1)).toBeCloseTo(0.016, 10); // 256x256
    expect(usd('dall-e-2', 1.25)).toBeCloseTo(0.02, 10); // 1024x1024
    expect(usd('dall-e-3', 1)).toBeCloseTo(0.04, 10);
    expect(usd('dall-e-3', 2)).toBeCloseTo(0.08, 10); // 1792x1024
  });

  it('carries cache discounts where vendors give them', () => {
    expect(price('claude-opus-4-1').extra_ratios).toEqual({
      cached_read_tokens: 0.1,
      cached_write_tokens: 1.25,
    });
    expect(price('gpt-4o').extra_ratios).toEqual({ cached_read_tokens: 0.5 });
    expect(price('gpt-4.1-mini').extra_ratios).toEqual({ cached_read_tokens: 0.25 });
    expect(price('gpt-5-nano').extra_ratios).toEqual({ cached_read_tokens: 0.1 });
    expect(price('gpt-4o-audio-preview').extra_ratios).toMatchObject({
      input_audio_tokens: 16,
      output_audio_tokens: 8,
    });
  });

  it('prices Midjourney and Suno per call, as one-hub does', () => {
    for (const prefix of ['mj_', 'mj_turbo_', 'mj_relax_']) {
      expect(price(`${prefix}imagine`)).toMatchObject({ type: 'times', channel_type: 34, input: 50 });
      expect(price(`${prefix}upscale`).input).toBe(25);
      expect(price(`${prefix}describe`).input).toBe(25);
      expect(price(`${prefix}swap_face`).input).toBe(25);
      expect(price(`${prefix}inpaint`).input).toBe(0);
      expect(price(`${prefix}upload`).input).toBe(0);
    }
    expect(price('suno_lyrics')).toMatchObject({ type: 'times', channel_type: 41, input: 5 });
    expect(price('chirp-v3-5').input).toBe(50);
    // quota = 1000 × input per call: 50 → 50 000 quota = $0.10
    expect(1000 * price('mj_imagine').input * 0.000002).toBeCloseTo(0.1, 10);
  });

  it('covers the mainstream families', () => {
    for (const m of [
      'gpt-4.1-nano',
      'o1',
      'o3',
      'o3-mini',
      'o4-mini',
      'gpt-5-mini',
      'gpt-3.5-turbo',
      'text-embedding-3-large',
      'text-embedding-ada-002',
      'gpt-image-1',
      'tts-1',
      'tts-1-hd',
      'whisper-1',
      'claude-opus-4-0',
      'claude-3-7-sonnet-20250219',
      'claude-3-5-haiku-20241022',
      'claude-haiku-4-5',
      'gemini-2.5-flash',
      'gemini-2.0-flash',
      'gemini-2.5-flash-lite',
      'text-embedding-004',
      'deepseek-reasoner',
      'llama-3.3-70b-versatile',
      'grok-4',
      'kimi-k2-0905-preview',
      'qwen-plus',
      'glm-4.6',
      'mistral-large-2411',
    ]) {
      expect(() => price(m)).not.toThrow();
    }
  });
});
