import { describe, expect, it } from 'vitest';
import {
  OPTION_VALUE_MAX,
  optionUpdateBatch,
  optionUpdateInput,
  optionUpdateSingle,
  optionUpdates,
} from './option.js';

describe('option update schemas', () => {
  it('accepts a single key/value', () => {
    const r = optionUpdateSingle.parse({ key: 'RetryTimes', value: '3' });
    expect(r).toEqual({ key: 'RetryTimes', value: '3' });
    expect(optionUpdates(optionUpdateInput.parse({ key: 'Notice', value: '' }))).toEqual([['Notice', '']]);
  });

  it('accepts a batch', () => {
    const body = { options: { RetryTimes: '3', SystemName: 'Gate' } };
    expect(optionUpdateBatch.parse(body)).toEqual(body);
    expect(optionUpdates(optionUpdateInput.parse(body))).toEqual([
      ['RetryTimes', '3'],
      ['SystemName', 'Gate'],
    ]);
  });

  it('rejects unknown keys with their name', () => {
    const single = optionUpdateSingle.safeParse({ key: 'ModelRatio', value: '{}' });
    expect(single.success).toBe(false);
    expect(single.error?.issues[0]?.message).toBe('Unknown option "ModelRatio"');
    const batch = optionUpdateBatch.safeParse({ options: { RetryTimes: '1', Nope: 'x' } });
    expect(batch.success).toBe(false);
    expect(batch.error?.issues.map((i) => i.message)).toEqual(['Unknown option "Nope"']);
  });

  it('rejects non-string values, extra fields, empty batches and oversized values', () => {
    expect(optionUpdateSingle.safeParse({ key: 'RetryTimes', value: 3 }).success).toBe(false);
    expect(optionUpdateSingle.safeParse({ key: 'RetryTimes', value: '3', extra: 1 }).success).toBe(false);
    expect(optionUpdateBatch.safeParse({ options: { RetryTimes: true } }).success).toBe(false);
    expect(optionUpdateBatch.safeParse({ options: {} }).success).toBe(false);
    expect(optionUpdateBatch.safeParse({ options: { RetryTimes: '1' }, key: 'x' }).success).toBe(false);
    expect(optionUpdateInput.safeParse({ key: 'RetryTimes' }).success).toBe(false);
    expect(
      optionUpdateSingle.safeParse({ key: 'Notice', value: 'x'.repeat(OPTION_VALUE_MAX + 1) }).success,
    ).toBe(false);
  });
});
