import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

// Alipay's and WeChat Pay's consoles hand out RSA keys as PEM files or as bare base64 (PKCS#8 or
// PKCS#1 for private keys, SPKI for public ones); both forms are accepted.

const wrap = (body: string, label: string) =>
  `-----BEGIN ${label}-----\n${body.replace(/\s+/g, '').replace(/(.{64})/g, '$1\n')}\n-----END ${label}-----\n`;

export function privateKeyOf(text: string): KeyObject {
  const t = text.trim();
  if (t.startsWith('-----')) return createPrivateKey(t);
  try {
    return createPrivateKey(wrap(t, 'PRIVATE KEY'));
  } catch {
    return createPrivateKey(wrap(t, 'RSA PRIVATE KEY'));
  }
}

export function publicKeyOf(text: string): KeyObject {
  const t = text.trim();
  return createPublicKey(t.startsWith('-----') ? t : wrap(t, 'PUBLIC KEY'));
}
