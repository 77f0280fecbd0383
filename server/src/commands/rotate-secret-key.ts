import { type OptionKey, optionDefs } from '@switchyard/domain';
import type { Kysely, Transaction } from 'kysely';
import { apiKeySecret } from '../auth/api-keys.js';
import { isSealed, type SecretBox } from '../crypto/secret-box.js';
import type { Tables } from '../db/tables.js';

// Re-seals everything sealed under SECRET_KEY (channel keys, API keys and their lookup hashes,
// redemption codes and theirs, payment configurations, secret options) under a new key, in one
// transaction: a failure or a kill leaves every value under the old key. Before writing anything it
// opens every value with the old key; when that fails it refuses, and says so when the values
// already open with the new key (the rotation ran before).

export interface RotationReport {
  channels: number;
  tokens: number;
  redemptions: number;
  payments: number;
  options: number;
}

export class RotationRefused extends Error {}

const SECRET_OPTIONS = (Object.keys(optionDefs) as OptionKey[]).filter((k) => optionDefs[k].secret);

interface Sealed {
  table: keyof RotationReport;
  id: string;
  sealed: string;
}

async function sealedValues(trx: Transaction<Tables>): Promise<Sealed[]> {
  const out: Sealed[] = [];
  for (const r of await trx.selectFrom('channels').select(['id', 'key_sealed']).execute())
    out.push({ table: 'channels', id: String(r.id), sealed: r.key_sealed });
  for (const r of await trx.selectFrom('tokens').select(['id', 'key_sealed']).execute())
    out.push({ table: 'tokens', id: String(r.id), sealed: r.key_sealed });
  for (const r of await trx.selectFrom('redemptions').select(['id', 'key_sealed']).execute())
    out.push({ table: 'redemptions', id: String(r.id), sealed: r.key_sealed });
  for (const r of await trx.selectFrom('payments').select(['id', 'config_sealed']).execute())
    if (r.config_sealed !== '') out.push({ table: 'payments', id: String(r.id), sealed: r.config_sealed });
  const options = await trx
    .selectFrom('options')
    .select(['key', 'value'])
    .where('key', 'in', SECRET_OPTIONS)
    .execute();
  // A secret option still in the clear (a database from before sealing) is simply sealed anew.
  for (const r of options)
    if (r.value !== '' && isSealed(r.value)) out.push({ table: 'options', id: r.key, sealed: r.value });
  return out;
}

const opens = (box: SecretBox, sealed: string) => {
  try {
    box.decrypt(sealed);
    return true;
  } catch {
    return false;
  }
};

export async function rotateSecretKey(
  db: Kysely<Tables>,
  from: SecretBox,
  to: SecretBox,
): Promise<RotationReport> {
  return db.transaction().execute(async (trx) => {
    const all = await sealedValues(trx);
    const closed = all.filter((v) => !opens(from, v.sealed));
    if (closed.length > 0) {
      if (closed.length === all.length && all.every((v) => opens(to, v.sealed)))
        throw new RotationRefused(
          'Every sealed value already opens with the new key: the rotation ran before. Nothing changed.',
        );
      const named = closed.slice(0, 10).map((v) => `${v.table} ${v.id}`);
      throw new RotationRefused(
        `${closed.length} sealed value(s) do not open with the current SECRET_KEY (${named.join(', ')}${closed.length > 10 ? ', ...' : ''}). Nothing changed.`,
      );
    }

    const report: RotationReport = { channels: 0, tokens: 0, redemptions: 0, payments: 0, options: 0 };
    for (const v of all) {
      const plain = from.decrypt(v.sealed);
      const sealed = to.encrypt(plain);
      if (v.table === 'channels') {
        await trx
          .updateTable('channels')
          .set({ key_sealed: sealed })
          .where('id', '=', Number(v.id))
          .execute();
      } else if (v.table === 'tokens') {
        // The lookup hash is keyed too: a key presented after the rotation must still be found.
        await trx
          .updateTable('tokens')
          .set({ key_sealed: sealed, key_hash: to.mac(apiKeySecret(plain)) })
          .where('id', '=', Number(v.id))
          .execute();
      } else if (v.table === 'redemptions') {
        await trx
          .updateTable('redemptions')
          .set({ key_sealed: sealed, key_hash: to.mac(plain.trim().toLowerCase()) })
          .where('id', '=', Number(v.id))
          .execute();
      } else if (v.table === 'payments') {
        await trx
          .updateTable('payments')
          .set({ config_sealed: sealed })
          .where('id', '=', Number(v.id))
          .execute();
      } else {
        await trx.updateTable('options').set({ value: sealed }).where('key', '=', v.id).execute();
      }
      report[v.table]++;
    }
    const plainOptions = await trx
      .selectFrom('options')
      .select(['key', 'value'])
      .where('key', 'in', SECRET_OPTIONS)
      .execute();
    for (const r of plainOptions) {
      if (r.value === '' || isSealed(r.value)) continue;
      await trx
        .updateTable('options')
        .set({ value: to.encrypt(r.value) })
        .where('key', '=', r.key)
        .execute();
      report.options++;
    }
    return report;
  });
}
