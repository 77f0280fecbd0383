import { beforeEach, describe, expect, it } from 'vitest';
import { i18n } from '../../i18n';
import { logText } from './log-text';

const dollars = (quota: number) => `$${(quota / 500_000).toFixed(2)}`;
const row = (quota: number, metadata: Record<string, unknown>, content = 'stored English text') => ({
  content,
  quota,
  metadata,
});

describe('logText', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('zh_CN');
  });

  it('writes a redemption in the reader language with the amount as money', async () => {
    const redeemed = row(5_000_000, { event: { kind: 'redeem', code: 'spring', code_id: 7 } });
    expect(logText(redeemed, i18n.t, dollars)).toBe('兑换码「spring」(#7) 充值 $10.00');
    await i18n.changeLanguage('en_US');
    expect(logText(redeemed, i18n.t, dollars)).toBe('Redeemed code "spring" (#7) for $10.00');
    await i18n.changeLanguage('ja_JP');
    expect(logText(redeemed, i18n.t, dollars)).toContain('$10.00');
    expect(logText(redeemed, i18n.t, dollars)).toContain('spring');
  });

  it('says whether an administrator added or deducted, with the remark', () => {
    expect(logText(row(1_000_000, { event: { kind: 'admin_quota' } }), i18n.t, dollars)).toBe(
      '管理员增加额度 $2.00',
    );
    expect(
      logText(row(-500_000, { event: { kind: 'admin_quota', remark: 'refund' } }), i18n.t, dollars),
    ).toBe('管理员扣除额度 $1.00；备注：refund');
  });

  it('names the payment of an online top-up and the invitation rewards', () => {
    const topup = {
      kind: 'topup',
      amount: 10,
      paid: '72.50',
      currency: 'CNY',
      gateway: 'Alipay',
      trade_no: 'SY123',
    };
    expect(logText(row(5_000_000, { event: topup }), i18n.t, dollars)).toBe(
      '在线充值 10 USD，通过 Alipay 支付 72.50 CNY，订单 SY123',
    );
    expect(
      logText(row(500_000, { event: { kind: 'inviter_reward', invitee: 'bob' } }), i18n.t, dollars),
    ).toBe('邀请 bob 获得奖励 $1.00');
  });

  it('keeps the stored text for rows without an event or with one it does not know', () => {
    expect(logText(row(1, {}), i18n.t, dollars)).toBe('stored English text');
    expect(logText(row(1, { event: { kind: 'later' } }), i18n.t, dollars)).toBe('stored English text');
  });
});
