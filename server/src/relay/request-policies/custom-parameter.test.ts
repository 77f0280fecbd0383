import { describe, expect, it } from 'vitest';
import { mergeCustomParameter, parseCustomParameter } from './custom-parameter.js';

const parsed = (v: Record<string, unknown>) => parseCustomParameter(JSON.stringify(v))!;

describe('custom parameters', () => {
  const body = { model: 'm', temperature: 0.9, stream: true, generationConfig: { topK: 3, topP: 0.5 } };

  it('without overwrite adds missing fields, merges objects and keeps the client values', () => {
    const p = parsed({ temperature: 0.1, extra: 'x', generationConfig: { topP: 0.9, seed: 7 } });
    expect(mergeCustomParameter(body, p, 'm')).toEqual({
      model: 'm',
      temperature: 0.9,
      stream: true,
      extra: 'x',
      generationConfig: { topK: 3, topP: 0.9, seed: 7 },
    });
  });

  it('with overwrite replaces the client values, never stream or the controls', () => {
    const p = parsed({ temperature: 0.123, extra: 'x', stream: false, overwrite: true, pre_add: true });
    expect(mergeCustomParameter(body, p, 'm')).toEqual({ ...body, temperature: 0.123, extra: 'x' });
    expect(p.preAdd).toBe(true);
  });

  it('per_model takes the object named by the model, and nothing for other models', () => {
    const p = parsed({ per_model: true, m: { seed: 1 }, other: { seed: 2 } });
    expect(mergeCustomParameter(body, p, 'm')).toEqual({ ...body, seed: 1 });
    expect(mergeCustomParameter(body, p, 'unlisted')).toEqual(body);
  });

  it('remove_params deletes dot paths without changing the client body', () => {
    const p = parsed({ remove_params: ['temperature', 'generationConfig.topK', 'missing.path'] });
    const out = mergeCustomParameter(body, p, 'm');
    expect(out).toEqual({ model: 'm', stream: true, generationConfig: { topP: 0.5 } });
    expect(body.generationConfig).toEqual({ topK: 3, topP: 0.5 });
    expect(body.temperature).toBe(0.9);
  });

  it('nothing to merge is no parameters at all', () => {
    expect(parseCustomParameter('')).toBeNull();
    expect(parseCustomParameter('{}')).toBeNull();
    expect(parseCustomParameter('{"overwrite": true}')).toBeNull();
    expect(() => parseCustomParameter('[1]')).toThrow();
  });
});
