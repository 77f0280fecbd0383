import { describe, expect, it } from 'vitest';
import { tokenCreateInput, tokenStatusInput, tokenUpdateInput } from './token.js';

const valid = { name: 'n', expired_time: -1, remain_quota: 0, unlimited_quota: true };

describe('token schemas', () => {
  it('normalise subnets and refuse entries that are not IPs or CIDRs', () => {
    const t = tokenCreateInput.parse({
      ...valid,
      subnet: ' 10.0.0.0/8,\n2001:db8::/32 , 10.0.0.0/8,192.168.1.7 ',
    });
    expect(t.subnet).toBe('10.0.0.0/8,2001:db8::/32,192.168.1.7');
    for (const bad of ['10.0.0.0/33', '256.1.1.1', 'example.com', '10.0.0.1/8/2'])
      expect(tokenCreateInput.safeParse({ ...valid, subnet: bad }).success, bad).toBe(false);
  });

  it('treat an empty model list as no restriction and drop repeats', () => {
    expect(tokenCreateInput.parse({ ...valid, models: [] }).models).toBeNull();
    expect(tokenCreateInput.parse(valid).models).toBeNull();
    expect(tokenCreateInput.parse({ ...valid, models: ['a', 'a', 'b'] }).models).toEqual(['a', 'b']);
  });

  it('let users set enabled or disabled only', () => {
    expect(tokenStatusInput.safeParse({ id: 1, status: 2 }).success).toBe(true);
    for (const status of [0, 3, 4]) expect(tokenStatusInput.safeParse({ id: 1, status }).success).toBe(false);
    expect(tokenUpdateInput.safeParse({ ...valid, id: 1, status: 4 }).success).toBe(false);
  });

  it('bound names and expiry times', () => {
    expect(tokenCreateInput.safeParse({ ...valid, name: 'x'.repeat(30) }).success).toBe(true);
    expect(tokenCreateInput.safeParse({ ...valid, name: 'x'.repeat(31) }).success).toBe(false);
    expect(tokenCreateInput.safeParse({ ...valid, expired_time: -2 }).success).toBe(false);
    expect(tokenCreateInput.safeParse({ ...valid, expired_time: 1.5 }).success).toBe(false);
  });
});
