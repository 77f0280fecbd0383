import { z } from 'zod';
import { TOPUP_MAX } from '../quota.js';

// Payment gateways and orders: the gateway form's rules (a currency and an icon are required, fees
// and sort are not negative) and the price of an order, shared by the console's breakdown and the
// server that charges it.

export const PAYMENT_TYPES = ['stripe', 'epay', 'alipay', 'wxpay'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];
export const PAYMENT_CURRENCIES = ['USD', 'CNY'] as const;
export type PaymentCurrency = (typeof PAYMENT_CURRENCIES)[number];

/** How the console sends the payer on: 1 a page to open (or a form to post), 2 a QR code to show. */
export const PayRequestType = { Redirect: 1, QrCode: 2 } as const;

/**
 * Each type's configuration. Fields named in `PAYMENT_SECRET_FIELDS` are sealed at rest and never
 * leave the server; an edit that leaves one empty keeps the stored value.
 */
export const PAYMENT_CONFIG_FIELDS: Record<PaymentType, readonly string[]> = {
  stripe: ['secret_key', 'webhook_secret', 'api_base'],
  epay: ['pay_domain', 'partner_id', 'key', 'pay_type'],
  alipay: ['app_id', 'private_key', 'public_key', 'pay_type', 'api_base'],
  wxpay: [
    'app_id',
    'mch_id',
    'mch_certificate_serial_number',
    'mch_apiv3_key',
    'mch_private_key',
    'platform_public_key',
    'api_base',
  ],
};
export const PAYMENT_SECRET_FIELDS: ReadonlySet<string> = new Set([
  'secret_key',
  'webhook_secret',
  'key',
  'private_key',
  'mch_apiv3_key',
  'mch_private_key',
]);
/** Fields a gateway works without (an empty one means the documented default). */
export const PAYMENT_OPTIONAL_FIELDS: ReadonlySet<string> = new Set(['api_base', 'pay_type']);
export const EPAY_PAY_TYPES = ['', 'alipay', 'wxpay', 'qqpay', 'jdpay', 'bank', 'paypal', 'usdt'] as const;
export const ALIPAY_PAY_TYPES = ['pagepay', 'facepay'] as const;

const money = (label: string) =>
  z
    .number({ error: `${label} is required` })
    .finite(`${label} must be a number`)
    .min(0, `${label} cannot be negative`)
    .max(1_000_000, `${label} is too large`);

/** POST and PUT /api/payment/: a gateway (the PUT also carries its id). */
export const paymentInput = z
  .strictObject({
    id: z.number().int().positive().optional(),
    type: z.enum(PAYMENT_TYPES, { error: `Type must be one of ${PAYMENT_TYPES.join(', ')}` }),
    name: z
      .string({ error: 'Name is required' })
      .trim()
      .min(1, 'Name is required')
      .max(100, 'Name is too long'),
    icon: z
      .string({ error: 'Icon is required' })
      .trim()
      .min(1, 'Icon is required')
      .max(300, 'Icon is too long'),
    notify_domain: z
      .string()
      .trim()
      .max(300, 'Notify domain is too long')
      .refine(
        (v) => v === '' || /^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(v),
        'Notify domain must be an http(s) address',
      )
      .default(''),
    fixed_fee: money('Fixed fee').default(0),
    percent_fee: money('Percent fee').max(1, 'Percent fee is a fraction: at most 1').default(0),
    currency: z.enum(PAYMENT_CURRENCIES, { error: 'Currency must be USD or CNY' }),
    sort: z
      .number({ error: 'Sort is required' })
      .int('Sort must be a whole number')
      .min(0, 'Sort cannot be negative')
      .default(1),
    enable: z.boolean().default(true),
    config: z.record(z.string(), z.string().max(8000, 'A configuration value is too long')).default({}),
  })
  .superRefine((v, ctx) => {
    const fields = PAYMENT_CONFIG_FIELDS[v.type];
    for (const key of Object.keys(v.config)) {
      if (!fields.includes(key))
        ctx.addIssue({
          code: 'custom',
          path: ['config', key],
          message: `${key} is not a setting of ${v.type}`,
        });
    }
    if ((v.type === 'alipay' || v.type === 'wxpay') && v.currency !== 'CNY')
      ctx.addIssue({ code: 'custom', path: ['currency'], message: `${v.type} charges in CNY only` });
  });
export type PaymentInput = z.infer<typeof paymentInput>;

/** POST /api/user/order. The amount's limits (PaymentMinAmount) are checked by the handler. */
export const orderInput = z.strictObject({
  uuid: z.string({ error: 'Gateway is required' }).trim().min(1, 'Gateway is required').max(64),
  amount: z.number({ error: 'Amount is required' }),
});

export interface OrderPrice {
  /** USD units asked for. */
  amount: number;
  /** The RechargeDiscount factor applied (1 without one). */
  factor: number;
  /** What the payer is charged, in the gateway's currency, cents rounded half up. */
  total: number;
  /** Saved by the discount, in the gateway's currency. */
  discount: number;
  /** Fixed plus percent fee, in the gateway's currency. */
  fee: number;
  currency: PaymentCurrency;
}

const cents = (v: number) => Math.round(v * 100 + Number.EPSILON * 100);

/**
 * The price of `amount` USD units through a gateway: the discount for that amount, then the fixed
 * fee plus the percent fee of the discounted sum, then CNY at `usdRate` for a CNY gateway.
 */
export function priceOrder(
  amount: number,
  gateway: { fixed_fee: number; percent_fee: number; currency: string },
  discounts: Record<string, number>,
  usdRate: number,
): OrderPrice {
  const factor = discounts[String(amount)] ?? 1;
  const rate = gateway.currency === 'CNY' ? usdRate : 1;
  const discounted = amount * factor;
  const fee = gateway.fixed_fee + discounted * gateway.percent_fee;
  const totalC = cents((discounted + fee) * rate);
  const discountC = cents((amount - discounted) * rate);
  const feeC = cents(fee * rate);
  return {
    amount,
    factor,
    total: totalC / 100,
    discount: discountC / 100,
    fee: feeC / 100,
    currency: gateway.currency === 'CNY' ? 'CNY' : 'USD',
  };
}

export { TOPUP_MAX as ORDER_AMOUNT_MAX };
