import { describe, expect, it } from 'vitest';
import { changedValues, checkCard, type OptionRow } from './settings-form';

const stored: OptionRow[] = [
  { key: 'QuotaForNewUser', value: '0', secret: false, set: false, section: 'operation' },
  { key: 'RechargeDiscount', value: '{}', secret: false, set: true, section: 'operation' },
  { key: 'GitHubOAuthEnabled', value: 'false', secret: false, set: true, section: 'system' },
  { key: 'GitHubClientId', value: '', secret: false, set: false, section: 'system' },
  { key: 'GitHubClientSecret', value: '', secret: true, set: false, section: 'system' },
];

describe('settings card', () => {
  it('sends only changed keys, and an empty secret means keep', () => {
    const draft = { QuotaForNewUser: '100', RechargeDiscount: '{}', GitHubClientSecret: '' };
    expect(
      changedValues(['QuotaForNewUser', 'RechargeDiscount', 'GitHubClientSecret'], draft, stored),
    ).toEqual({
      QuotaForNewUser: '100',
    });
    expect(changedValues(['GitHubClientSecret'], { GitHubClientSecret: 's3' }, stored)).toEqual({
      GitHubClientSecret: 's3',
    });
  });

  it('reports invalid JSON apart from a JSON of the wrong shape, and bad numbers', () => {
    expect(checkCard({ RechargeDiscount: '{"100": 0.9' }, {}, stored)).toEqual([
      { key: 'RechargeDiscount', kind: 'json' },
    ]);
    const shape = checkCard({ RechargeDiscount: '{"100": 2}' }, {}, stored);
    expect(shape[0]).toMatchObject({ key: 'RechargeDiscount', kind: 'value' });
    expect(checkCard({ QuotaForNewUser: '-1' }, {}, stored)).toEqual([
      { key: 'QuotaForNewUser', kind: 'value', reason: 'must be at least 0' },
    ]);
    expect(checkCard({ QuotaForNewUser: '5' }, {}, stored)).toEqual([]);
  });

  it('refuses a toggle whose required settings are empty, unless the card fills them', () => {
    const draft = { GitHubOAuthEnabled: 'true' };
    expect(checkCard(draft, draft, stored)).toEqual([
      { key: 'GitHubOAuthEnabled', kind: 'requires', missing: ['GitHubClientId', 'GitHubClientSecret'] },
    ]);
    const filled = { GitHubOAuthEnabled: 'true', GitHubClientId: 'id', GitHubClientSecret: 'secret' };
    expect(checkCard(filled, filled, stored)).toEqual([]);
  });
});
