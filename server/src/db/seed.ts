import { defaultPrices, Role, reservedModelOwners } from '@switchyard/domain';
import type { PasswordHasher } from '../auth/passwords.js';
import { newAffCode, newRandomPassword } from '../auth/random-codes.js';
import type { Repos } from '../services.js';
import { isUniqueViolation } from './dialect.js';
import { newUserRow } from './queries/users.js';

export interface SeedResult {
  /** Set when this start created the root user with a generated password (print it once). */
  generatedRootPassword?: string;
  createdRoot: boolean;
}

/**
 * First-start data: the three user groups, the reserved model owners, the built-in price table
 * (only into an empty table, so an operator's deletions stay deleted) and the root user. Every step
 * tolerates a second node doing the same at the same moment.
 */
export async function seedDatabase(
  repos: Repos,
  passwords: PasswordHasher,
  initialRootPassword: string | undefined,
  nowSeconds: number,
): Promise<SeedResult> {
  await repos.userGroups.seed();
  await repos.modelOwners.seed(reservedModelOwners());
  if ((await repos.prices.count()) === 0) {
    await repos.prices.insertMissing(
      defaultPrices.map((p) => ({
        model: p.model,
        type: p.type,
        channel_type: p.channel_type,
        input: p.input,
        output: p.output,
        locked: 0,
        extra_ratios: JSON.stringify(p.extra_ratios ?? {}),
      })),
    );
  }
  if ((await repos.users.count()) > 0) return { createdRoot: false };
  const password = initialRootPassword ?? newRandomPassword();
  try {
    await repos.users.insert(
      newUserRow({
        username: 'root',
        password_hash: await passwords.hash(password),
        display_name: 'Root User',
        role: Role.Root,
        quota: 100_000_000,
        aff_code: newAffCode(),
        created_time: nowSeconds,
      }),
    );
  } catch (err) {
    // Another node created root first.
    if (isUniqueViolation(err)) return { createdRoot: false };
    throw err;
  }
  return initialRootPassword ? { createdRoot: true } : { createdRoot: true, generatedRootPassword: password };
}
