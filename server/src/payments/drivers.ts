import type { PaymentType } from '@switchyard/domain';
import type { GatewayDriver } from './gateway.js';
import { alipayDriver } from './gateways/alipay.js';
import { epayDriver } from './gateways/epay.js';
import { stripeDriver } from './gateways/stripe.js';
import { wechatPayDriver } from './gateways/wechat-pay.js';

/** THE table of payment gateway types and the driver speaking each one's protocol. */
export const PAYMENT_DRIVERS: Readonly<Record<PaymentType, GatewayDriver>> = {
  stripe: stripeDriver,
  epay: epayDriver,
  alipay: alipayDriver,
  wxpay: wechatPayDriver,
};
