import { describe, expect, it } from 'vitest';
import { userCreateInput, userManageInput, userQuotaInput, userUpdateInput } from './user-admin.js';

describe('user admin schemas', () => {
  it('require username and password to create; the group defaults to default', () => {
    const noGroup = userCreateInput.safeParse({ username: 'abc', password: '12345678' });
    expect(noGroup.success && noGroup.data.group).toBe('default');
    expect(userCreateInput.safeParse({ username: 'abc', password: '12345678', group: ' ' }).success).toBe(
      false,
    );
    expect(
      userCreateInput.safeParse({ username: 'abc', password: '12345678', group: 'default' }).success,
    ).toBe(true);
    for (const bad of [
      { password: '12345678', group: 'default' },
      { username: 'abc', group: 'default' },
      { username: 'ab', password: '12345678', group: 'default' },
      { username: 'abc', password: '1234567', group: 'default' },
    ])
      expect(userCreateInput.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it('refuse quota in an edit with a message pointing at the adjustment', () => {
    const r = userUpdateInput.safeParse({ id: 1, username: 'abc', group: 'default', quota: 5 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toContain('POST /api/user/quota/:id');
    expect(
      userUpdateInput.safeParse({ id: 1, username: 'abc', group: 'default', password: '' }).success,
    ).toBe(true);
  });

  it('take a target by username or id and a known action', () => {
    expect(userManageInput.safeParse({ username: 'a', action: 'promote' }).success).toBe(true);
    expect(userManageInput.safeParse({ id: 2, action: 'disable' }).success).toBe(true);
    expect(userManageInput.safeParse({ action: 'disable' }).success).toBe(false);
    expect(userManageInput.safeParse({ id: 2, action: 'set_reliable' }).success).toBe(false);
  });

  it('need a non-zero whole quota change and a short remark', () => {
    expect(userQuotaInput.parse({ quota: -5 })).toEqual({ quota: -5, remark: '' });
    for (const quota of [0, 1.5, '5', undefined])
      expect(userQuotaInput.safeParse({ quota }).success, String(quota)).toBe(false);
    expect(userQuotaInput.safeParse({ quota: 1, remark: 'x'.repeat(201) }).success).toBe(false);
  });
});
