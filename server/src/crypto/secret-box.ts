import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const OPENED_CACHE_SIZE = 10_000;

/** True when `value` has the shape `encrypt` gives (a secret stored before sealing does not). */
export function isSealed(value: string): boolean {
  return value.startsWith(`${VERSION}:`);
}

/** What sealing stored values needs of a SecretBox. */
export interface Sealer {
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
}

/**
 * Encryption at rest (AES-256-GCM) and keyed lookups (HMAC-SHA256) for channel keys, API keys and
 * other bearer secrets. Both keys are derived from SECRET_KEY so one setting protects everything,
 * while the two uses never share a key.
 */
export class SecretBox implements Sealer {
  private readonly encKey: Buffer;
  private readonly macKey: Buffer;
  /**
   * Sealed -> plain for values opened before: the relay opens a channel's key on every request,
   * and a sealed value never changes meaning (a new key gets a new random IV, so a new entry).
   */
  private readonly opened = new Map<string, string>();

  constructor(secretKey: string) {
    const ikm = Buffer.from(secretKey, 'utf8');
    this.encKey = Buffer.from(hkdfSync('sha256', ikm, 'switchyard', 'encryption', 32));
    this.macKey = Buffer.from(hkdfSync('sha256', ikm, 'switchyard', 'lookup-mac', 32));
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encKey, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  decrypt(sealed: string): string {
    const known = this.opened.get(sealed);
    if (known !== undefined) return known;
    const plain = this.open(sealed);
    if (this.opened.size >= OPENED_CACHE_SIZE) this.opened.clear();
    this.opened.set(sealed, plain);
    return plain;
  }

  private open(sealed: string): string {
    const [version, payload] = sealed.split(':', 2);
    if (version !== VERSION || payload === undefined) throw new Error('Unrecognised sealed value');
    const raw = Buffer.from(payload, 'base64url');
    if (raw.length < 28) throw new Error('Sealed value is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.encKey, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  /** A stable lookup hash: the same input always gives the same hex string. */
  mac(value: string): string {
    return createHmac('sha256', this.macKey).update(value).digest('hex');
  }
}
