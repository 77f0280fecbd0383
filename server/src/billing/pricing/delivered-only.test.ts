import { describe, expect, it } from 'vitest';
import { billsDeliveredOnly } from './delivered-only.js';

describe('billsDeliveredOnly', () => {
  it('is on only for plugin.billing.delivered_only === true', () => {
    expect(billsDeliveredOnly('{"billing":{"delivered_only":true}}')).toBe(true);
    expect(billsDeliveredOnly('{"billing":{"delivered_only":false}}')).toBe(false);
    expect(billsDeliveredOnly('{"billing":{"delivered_only":"yes"}}')).toBe(false);
    expect(billsDeliveredOnly('{"delivered_only":true}')).toBe(false);
    expect(billsDeliveredOnly('')).toBe(false);
    expect(billsDeliveredOnly('{not json delivered_only')).toBe(false);
  });
});
