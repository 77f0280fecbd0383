import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../crypto/secret-box.js';

// API keys (`sk-...`) of tokens: generation, storage form, and parsing of what clients send
// (one-hub's forms, with the administrators' `#<channel id>` suffixes). A key is only ever looked
// up by its HMAC; the sealed copy exists so its owner can see it again.

export const API_KEY_PREFIX = 'sk-';
export const API_KEY_LENGTH = 48;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// Bytes at or above this are rejected so every character is equally likely (248 = 4 x 62).
const UNBIASED_LIMIT = 248;
/** Anything longer than this is not a key of ours; refusing early keeps HMAC work bounded. */
const MAX_SECRET_LENGTH = 128;

/** A new key: `sk-` + 48 base62 characters from the system CSPRNG (48 x log2(62) ≈ 285 bits). */
export function newApiKey(): string {
  let out = '';
  while (out.length < API_KEY_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += BASE62.charAt(byte % 62);
      if (out.length === API_KEY_LENGTH) break;
    }
  }
  return API_KEY_PREFIX + out;
}

/** The secret part of a key: what is hashed and sealed (the `sk-` prefix carries no secret). */
export function apiKeySecret(key: string): string {
  return key.startsWith(API_KEY_PREFIX) ? key.slice(API_KEY_PREFIX.length) : key;
}

/** The columns a token row stores for its key. */
export function sealApiKey(box: SecretBox, key: string): { key_hash: string; key_sealed: string } {
  const secret = apiKeySecret(key);
  return { key_hash: box.mac(secret), key_sealed: box.encrypt(secret) };
}

/** The lookup hash of a key or of its secret part (as returned by parseBearerKey). */
export function apiKeyHash(box: SecretBox, keyOrSecret: string): string {
  return box.mac(apiKeySecret(keyOrSecret));
}

/** The full `sk-` key back from its sealed column. */
export function unsealApiKey(box: SecretBox, sealed: string): string {
  return API_KEY_PREFIX + box.decrypt(sealed);
}

/** `sk-abcd…wxyz`: recognisable in a list, useless as a credential. */
export function maskApiKey(key: string): string {
  const secret = apiKeySecret(key);
  if (secret.length <= 8) return `${API_KEY_PREFIX}…`;
  return `${API_KEY_PREFIX}${secret.slice(0, 4)}…${secret.slice(-4)}`;
}

export interface BearerKey {
  /** The secret part of the key, without `sk-` and without a channel suffix: the input of apiKeyHash. */
  key: string;
  /** `sk-KEY#<id>`: an administrator forces this channel (no retries). */
  pinChannelId?: number;
  /** `sk-KEY#!<id>`: an administrator keeps this channel out of the choice. */
  excludeChannelId?: number;
}

const SUFFIX = /^(!?)([1-9][0-9]{0,15})$/;

/**
 * Reads the key a client sent in `Authorization: Bearer sk-...` (the `Bearer ` and `sk-` prefixes
 * are both optional, as clients differ) or in `x-api-key`. Whether the caller may use a channel
 * suffix (administrators only) is the relay's decision. Returns null when nothing usable was sent.
 */
export function parseBearerKey(header: string | string[] | undefined | null): BearerKey | null {
  const raw = Array.isArray(header) ? header[0] : header;
  if (!raw) return null;
  const value = raw
    .trim()
    .replace(/^Bearer(?:\s+|$)/i, '')
    .trim();
  const hash = value.indexOf('#');
  const secret = apiKeySecret(hash === -1 ? value : value.slice(0, hash));
  if (secret.length === 0 || secret.length > MAX_SECRET_LENGTH || /\s/.test(secret)) return null;
  if (hash === -1) return { key: secret };
  const m = SUFFIX.exec(value.slice(hash + 1));
  if (!m) return null;
  const id = Number(m[2]);
  return m[1] === '!' ? { key: secret, excludeChannelId: id } : { key: secret, pinChannelId: id };
}

/** The key of a request: `Authorization` first, then `x-api-key` (Anthropic-style clients). */
export function bearerKeyFromHeaders(headers: {
  authorization?: string | undefined;
  'x-api-key'?: string | string[] | undefined;
}): BearerKey | null {
  return parseBearerKey(headers.authorization) ?? parseBearerKey(headers['x-api-key']);
}
