import {
  currencyFromQuota,
  NEVER_EXPIRES,
  quotaFromCurrency,
  TOKEN_NAME_MAX,
  type TokenCreateInput,
  type TokenView,
} from '@switchyard/domain';
import dayjs from 'dayjs';

// The token dialog's fields as typed, and the API body made from them (quota entered in
// currency when display_in_currency is on, converted with quota_per_unit and rounded).

export interface TokenFormValues {
  name: string;
  neverExpires: boolean;
  /** `YYYY-MM-DDTHH:mm` in local time, as a datetime-local input holds it. */
  expiresAt: string;
  unlimited: boolean;
  /** Raw quota, or currency when the site shows currency. */
  quota: string;
  group: string;
}

export type TokenFormErrors = Partial<
  Record<keyof TokenFormValues, 'required' | 'tooLong' | 'invalid' | 'past' | 'negative'>
>;

export interface QuotaUnits {
  quotaPerUnit: number;
  displayInCurrency: boolean;
}

const INPUT_FORMAT = 'YYYY-MM-DDTHH:mm';

export function emptyTokenForm(now: Date, units: QuotaUnits): TokenFormValues {
  return {
    name: '',
    neverExpires: true,
    expiresAt: dayjs(now).add(30, 'day').format(INPUT_FORMAT),
    unlimited: false,
    quota: units.displayInCurrency ? '1' : String(units.quotaPerUnit),
    group: '',
  };
}

export function tokenFormOf(token: TokenView, units: QuotaUnits): TokenFormValues {
  return {
    name: token.name,
    neverExpires: token.expired_time === NEVER_EXPIRES,
    expiresAt:
      token.expired_time === NEVER_EXPIRES
        ? dayjs().add(30, 'day').format(INPUT_FORMAT)
        : dayjs.unix(token.expired_time).format(INPUT_FORMAT),
    unlimited: token.unlimited_quota,
    quota: units.displayInCurrency
      ? String(Number(currencyFromQuota(token.remain_quota, units.quotaPerUnit).toFixed(6)))
      : String(token.remain_quota),
    group: token.group,
  };
}

/** The problems of the form, field by field; empty when it may be sent. */
export function tokenFormErrors(v: TokenFormValues, now: Date): TokenFormErrors {
  const errors: TokenFormErrors = {};
  const name = v.name.trim();
  if (name === '') errors.name = 'required';
  else if (name.length > TOKEN_NAME_MAX) errors.name = 'tooLong';
  if (!v.neverExpires) {
    const at = dayjs(v.expiresAt);
    if (v.expiresAt.trim() === '' || !at.isValid()) errors.expiresAt = 'invalid';
    else if (at.valueOf() <= now.getTime()) errors.expiresAt = 'past';
  }
  if (!v.unlimited) {
    const text = v.quota.trim();
    const n = Number(text);
    if (text === '' || !Number.isFinite(n)) errors.quota = 'invalid';
    else if (n < 0) errors.quota = 'negative';
  }
  return errors;
}

/** The body of POST/PUT /api/token/ for valid values. */
export function tokenBody(v: TokenFormValues, units: QuotaUnits): TokenCreateInput {
  const amount = v.unlimited ? 0 : Number(v.quota.trim());
  return {
    name: v.name.trim(),
    expired_time: v.neverExpires ? NEVER_EXPIRES : dayjs(v.expiresAt).unix(),
    remain_quota: v.unlimited
      ? 0
      : units.displayInCurrency
        ? quotaFromCurrency(amount, units.quotaPerUnit)
        : Math.round(amount),
    unlimited_quota: v.unlimited,
    group: v.group,
    models: null,
    subnet: '',
  };
}
