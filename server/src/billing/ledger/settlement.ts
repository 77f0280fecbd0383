// The arithmetic of a settlement, shared by every ledger store so the engines cannot disagree.

export interface SettlementAmounts {
  /** What was taken in the end: reserved + extra, or less after a refund. Equals the log's quota. */
  charged: number;
  /** Balance change: positive = money back to the balance, negative = the extra taken. */
  change: number;
  /** Returned to the balance because the reserve exceeded the cost. */
  refunded: number;
  /** Cost the balance could not cover. */
  shortfall: number;
}

/**
 * How a reservation of `reserved` settles at `finalQuota` when `room` more can be taken (what is
 * left on the user and, for a limited token, on the token). Only an overrun needs `room`; a caller
 * that knows there is none may pass a thunk that is then never called.
 */
export function settlementAmounts(
  reserved: number,
  finalQuota: number,
  room: () => number,
): SettlementAmounts {
  const delta = finalQuota - reserved;
  let extra = 0;
  let shortfall = 0;
  if (delta > 0) {
    extra = Math.min(delta, Math.max(0, room()));
    shortfall = delta - extra;
  }
  const charged = delta > 0 ? reserved + extra : finalQuota;
  const change = reserved - charged;
  return { charged, change, refunded: Math.max(change, 0), shortfall };
}

/** Adds `shortfall` to the caller's metadata JSON (kept as `detail` if it is not a JSON object). */
export function withShortfall(metadata: string, shortfall: number): string {
  if (shortfall <= 0) return metadata;
  let parsed: unknown;
  try {
    parsed = metadata.trim() === '' ? {} : JSON.parse(metadata);
  } catch {
    parsed = undefined;
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    return JSON.stringify({ ...parsed, shortfall });
  }
  return JSON.stringify({ detail: metadata, shortfall });
}
