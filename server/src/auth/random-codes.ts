import { randomBytes, randomInt } from 'node:crypto';

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

function pick(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** Invite codes: short enough to type, long enough (57^8) not to collide in practice. */
export const newAffCode = () => pick(ALNUM, 8);
/** Six digits, as mailed for email verification. */
export const newVerificationCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');
/** Reset-link tokens: 256 bits. */
export const newResetToken = () => randomBytes(32).toString('base64url');
/** Management access tokens: 128 bits as 32 hex characters (the shape one-hub clients expect). */
export const newAccessToken = () => randomBytes(16).toString('hex');
/** Passwords set by a reset: 16 characters from a 57-letter alphabet (~93 bits). */
export const newRandomPassword = () => pick(ALNUM, 16);
