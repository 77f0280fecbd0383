import {
  ALIPAY_PAY_TYPES,
  EPAY_PAY_TYPES,
  PAYMENT_CONFIG_FIELDS,
  PAYMENT_OPTIONAL_FIELDS,
  PAYMENT_SECRET_FIELDS,
  type PaymentType,
} from '@switchyard/domain';
import type { SecretBox } from '../crypto/secret-box.js';
import type { GatewayConfig } from './gateway.js';
import { privateKeyOf, publicKeyOf } from './gateways/keys.js';

// A gateway's configuration is one JSON object sealed with SECRET_KEY (like channel keys). Its
// secret fields never leave the server: the presenter blanks them and names the ones set.

export function sealConfig(box: SecretBox, config: GatewayConfig): string {
  return box.encrypt(JSON.stringify(config));
}

export function openConfig(box: SecretBox, sealed: string): Record<string, string> {
  if (!sealed) return {};
  return JSON.parse(box.decrypt(sealed)) as Record<string, string>;
}

/** The configuration as the API shows it, and which secrets are stored. */
export function presentConfig(type: string, config: GatewayConfig) {
  const shown: Record<string, string> = {};
  const secretsSet: string[] = [];
  for (const field of PAYMENT_CONFIG_FIELDS[type as PaymentType] ?? []) {
    const v = config[field] ?? '';
    if (PAYMENT_SECRET_FIELDS.has(field)) {
      shown[field] = '';
      if (v) secretsSet.push(field);
    } else shown[field] = v;
  }
  return { config: shown, secrets_set: secretsSet };
}

/** An edit's config over the stored one: an empty secret keeps what is stored. */
export function mergeConfig(
  type: string,
  stored: GatewayConfig,
  edit: GatewayConfig,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of PAYMENT_CONFIG_FIELDS[type as PaymentType] ?? []) {
    const v = (edit[field] ?? '').trim();
    out[field] = v === '' && PAYMENT_SECRET_FIELDS.has(field) ? (stored[field] ?? '') : v;
  }
  return out;
}

const isHttpUrl = (v: string) => /^https?:\/\/[^\s/]+(\/\S*)?$/.test(v);

/** What is wrong with a complete configuration of `type`, field by field. */
export function configProblems(type: PaymentType, c: GatewayConfig): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const bad = (field: string, message: string) => problems.push({ path: `config.${field}`, message });
  for (const field of PAYMENT_CONFIG_FIELDS[type]) {
    if (!PAYMENT_OPTIONAL_FIELDS.has(field) && !c[field]) bad(field, `${field} is required`);
  }
  if (c.api_base && !isHttpUrl(c.api_base)) bad('api_base', 'api_base must be an http(s) address');
  const keyCheck = (field: string, parse: (t: string) => unknown, what: string) => {
    if (!c[field]) return;
    try {
      parse(c[field]);
    } catch {
      bad(field, `${field} is not ${what}`);
    }
  };
  if (type === 'stripe' && c.webhook_secret && !c.webhook_secret.startsWith('whsec_'))
    bad('webhook_secret', 'webhook_secret starts with whsec_');
  if (type === 'epay') {
    if (c.pay_domain && !isHttpUrl(c.pay_domain)) bad('pay_domain', 'pay_domain must be an http(s) address');
    if (!(EPAY_PAY_TYPES as readonly string[]).includes(c.pay_type ?? ''))
      bad('pay_type', 'unknown pay_type');
  }
  if (type === 'alipay') {
    if (c.pay_type && !(ALIPAY_PAY_TYPES as readonly string[]).includes(c.pay_type))
      bad('pay_type', 'pay_type is pagepay or facepay');
    keyCheck('private_key', privateKeyOf, 'an RSA private key');
    keyCheck('public_key', publicKeyOf, "Alipay's RSA public key");
  }
  if (type === 'wxpay') {
    if (c.mch_apiv3_key && Buffer.byteLength(c.mch_apiv3_key, 'utf8') !== 32)
      bad('mch_apiv3_key', 'mch_apiv3_key is 32 characters');
    keyCheck('mch_private_key', privateKeyOf, 'an RSA private key');
    keyCheck('platform_public_key', publicKeyOf, "the platform's RSA public key");
  }
  return problems;
}
