import { logEventOf } from '@switchyard/domain';
import type { TFunction } from 'i18next';

interface LogRow {
  content: string;
  quota: number;
  metadata: Record<string, unknown>;
}

/**
 * A row's sentence in the reader's language, its amount as the site shows money; the stored
 * (English) text for rows that record no event, such as rows written before events existed.
 */
export function logText(row: LogRow, t: TFunction, formatQuota: (quota: number) => string): string {
  const event = logEventOf(row.metadata);
  if (!event) return row.content;
  const quota = formatQuota(Math.abs(row.quota));
  switch (event.kind) {
    case 'redeem':
      return t('user.log.event.redeem', { code: event.code, id: event.code_id, quota });
    case 'admin_quota': {
      const text = t(row.quota < 0 ? 'user.log.event.adminDeducted' : 'user.log.event.adminAdded', { quota });
      return event.remark ? t('user.log.event.adminRemark', { text, remark: event.remark }) : text;
    }
    case 'topup':
      return t('user.log.event.topup', {
        amount: event.amount,
        gateway: event.gateway,
        paid: event.paid,
        currency: event.currency,
        order: event.trade_no,
      });
    case 'signup_bonus':
      return t('user.log.event.signupBonus', { quota });
    case 'invitee_bonus':
      return t('user.log.event.inviteeBonus', { quota });
    case 'inviter_reward':
      return t('user.log.event.inviterReward', { invitee: event.invitee, quota });
  }
}
