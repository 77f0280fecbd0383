import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';

// argon2id (algorithm 2) with OWASP's minimum recommended cost (19 MiB, 2 passes): a sign-in stays
// well under 100 ms on a small machine.
const PARAMS = { algorithm: 2 as const, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * Checks a password. With no stored hash (unknown user) it still does the full work against a
   * throw-away hash and answers false, so timing does not reveal which accounts exist.
   */
  verify(stored: string | undefined, password: string): Promise<boolean>;
  /** True for a hash of an older scheme (bcrypt, imported from one-hub or one-api): rehash it after a sign-in. */
  needsRehash(stored: string): boolean;
}

// bcrypt hashes as Go's x/crypto/bcrypt and PHP write them ($2a$, $2b$, $2y$).
const BCRYPT = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

export class Argon2Hasher implements PasswordHasher {
  private dummy: Promise<string> | undefined;

  hash(password: string): Promise<string> {
    return hash(password, PARAMS);
  }

  async verify(stored: string | undefined, password: string): Promise<boolean> {
    if (stored === undefined) {
      this.dummy ??= hash(randomBytes(16).toString('hex'), PARAMS);
      await verify(await this.dummy, password).catch(() => false);
      return false;
    }
    try {
      if (BCRYPT.test(stored)) return await bcrypt.compare(password, stored);
      return await verify(stored, password);
    } catch {
      return false;
    }
  }

  needsRehash(stored: string): boolean {
    return BCRYPT.test(stored);
  }
}
