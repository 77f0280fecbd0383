import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../../db/tables.js';

// A settlement without a reserve row (charged against a quota lease, or with nothing reserved) has
// no row whose absence proves it committed. Its settlement-journal number is written instead, in
// the transaction that charges it: one `ledger_settled` row per group holding the group's numbers.
// A group run again after a COMMIT whose answer was lost, and a restart's replay, skip the numbers
// found there. Exact, not a high-water mark: a group that failed and is run again item by item
// commits after later groups did.

/** Ascending journal numbers as ranges, `4-9,12`: a group's numbers are nearly always one run. */
export function encodeSeqs(seqs: readonly number[]): string {
  const sorted = [...new Set(seqs)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** A group's `ledger_settled` row: its lowest and highest number and all of them as ranges; none for no numbers. */
export function settledRow(seqs: readonly number[]): { lo: number; hi: number; seqs: string } | undefined {
  if (seqs.length === 0) return undefined;
  return { lo: Math.min(...seqs), hi: Math.max(...seqs), seqs: encodeSeqs(seqs) };
}

/** The ranges `encodeSeqs` wrote, as [first, last] pairs. */
export function decodeSeqs(text: string): [number, number][] {
  if (text === '') return [];
  return text.split(',').map((part) => {
    const [a, b] = part.split('-');
    const first = Number(a);
    const last = b === undefined ? first : Number(b);
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || last < first)
      throw new Error(`ledger_settled holds an unreadable range: ${part}`);
    return [first, last];
  });
}

/** Which of `seqs` a committed group of node `nodeId` holds in `ledger_settled`. */
export async function settledAmong(
  db: Kysely<Tables> | Transaction<Tables>,
  nodeId: string,
  seqs: readonly number[],
): Promise<Set<number>> {
  const found = new Set<number>();
  if (seqs.length === 0) return found;
  const lowest = Math.min(...seqs);
  const highest = Math.max(...seqs);
  const rows = await db
    .selectFrom('ledger_settled')
    .select('seqs')
    .where('node_id', '=', nodeId)
    .where('lo', '<=', highest)
    .where('hi', '>=', lowest)
    .execute();
  const ranges = rows.flatMap((r) => decodeSeqs(r.seqs));
  for (const n of seqs) if (ranges.some(([first, last]) => n >= first && n <= last)) found.add(n);
  return found;
}
