import { EXTRA_RATIO_KEYS, type ExtraRatioKey, type PriceType } from '@switchyard/domain';
import type { PriceRow } from '../../db/tables.js';

// The keys a price's `extra_ratios` may hold are the domain's, shared with the console's forms.
export { EXTRA_RATIO_KEYS, type ExtraRatioKey };
export type ExtraRatios = Readonly<Partial<Record<ExtraRatioKey, number>>>;

const extraRatioKeys: ReadonlySet<string> = new Set(EXTRA_RATIO_KEYS);

/** One price, parsed from its row once so pricing never touches JSON on the hot path. */
export interface ModelPrice {
  /** The row's model name as stored (ends with `*` for a wildcard price). */
  readonly model: string;
  readonly type: PriceType;
  /** Owner id (a channel-type number). */
  readonly channelType: number;
  /** Input ratio: 1 = 1 quota per token at group ratio 1. For `times`, 1000 x input quota per call. */
  readonly input: number;
  readonly output: number;
  readonly locked: boolean;
  /** Only the keys the row sets; quota-math.ts supplies the defaults for the others. */
  readonly extraRatios: ExtraRatios;
}

/**
 * Reads `extra_ratios` JSON text. Unknown keys and values that are not finite non-negative
 * numbers are dropped rather than failing the whole price table: one bad row must not stop every
 * model from being served. `onInvalid` hears about each drop so the operator can be told.
 */
export function parseExtraRatios(text: string, onInvalid?: (problem: string) => void): ExtraRatios {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    onInvalid?.('extra_ratios is not valid JSON');
    return {};
  }
  if (parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    onInvalid?.('extra_ratios is not a JSON object');
    return {};
  }
  const out: Partial<Record<ExtraRatioKey, number>> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!extraRatioKeys.has(key)) {
      onInvalid?.(`unknown extra ratio ${key}`);
      continue;
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      onInvalid?.(`extra ratio ${key} is not a non-negative number`);
      continue;
    }
    out[key as ExtraRatioKey] = value;
  }
  return out;
}

function toModelPrice(row: PriceRow, onInvalid?: (model: string, problem: string) => void): ModelPrice {
  return {
    model: row.model,
    // Anything but an explicit per-call price is billed by tokens, the safe reading of a bad row.
    type: row.type === 'times' ? 'times' : 'tokens',
    channelType: row.channel_type,
    input: row.input,
    output: row.output,
    locked: row.locked !== 0,
    extraRatios: parseExtraRatios(row.extra_ratios, onInvalid && ((p) => onInvalid(row.model, p))),
  };
}

/**
 * The price table in memory. Built once from the `prices` rows (rebuild it on change); `lookup`
 * reads only maps.
 *
 * Resolution: an exact model name first; otherwise the wildcard price (`prefix*`) with the LONGEST
 * prefix that starts the model name. Two matching wildcard prefixes of equal length are the same
 * string, and `model` is the table's primary key, so the answer never depends on row order
 * (one-hub leaves the order of overlapping wildcards undefined).
 */
export class PriceBook {
  private readonly exact = new Map<string, ModelPrice>();
  private readonly wildcards = new Map<string, ModelPrice>();
  /** Distinct wildcard prefix lengths, longest first: a lookup probes one map key per length. */
  private readonly prefixLengths: number[];

  constructor(rows: readonly PriceRow[], onInvalid?: (model: string, problem: string) => void) {
    for (const row of rows) {
      const price = toModelPrice(row, onInvalid);
      if (row.model.endsWith('*')) this.wildcards.set(row.model.slice(0, -1), price);
      else this.exact.set(row.model, price);
    }
    this.prefixLengths = [...new Set([...this.wildcards.keys()].map((p) => p.length))].sort((a, b) => b - a);
  }

  lookup(model: string): ModelPrice | undefined {
    const exact = this.exact.get(model);
    if (exact) return exact;
    for (const length of this.prefixLengths) {
      if (length > model.length) continue;
      const price = this.wildcards.get(model.slice(0, length));
      if (price) return price;
    }
    return undefined;
  }

  /** Number of price rows (exact and wildcard). */
  get size(): number {
    return this.exact.size + this.wildcards.size;
  }

  /** Every price, exact ones first, for listings (e.g. `/v1/models`). */
  all(): ModelPrice[] {
    return [...this.exact.values(), ...this.wildcards.values()];
  }
}
