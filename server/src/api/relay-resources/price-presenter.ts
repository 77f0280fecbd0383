import {
  EXTRA_RATIO_KEYS,
  type ExtraRatioKey,
  type PriceInput,
  type PriceType,
  type PriceView,
} from '@switchyard/domain';
import type { PriceRow } from '../../db/tables.js';

const KNOWN = new Set<string>(EXTRA_RATIO_KEYS);

function extraRatios(text: string): PriceView['extra_ratios'] {
  try {
    const parsed: unknown = JSON.parse(text || '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const out: PriceView['extra_ratios'] = {};
    for (const [k, v] of Object.entries(parsed)) {
      if (KNOWN.has(k) && typeof v === 'number') out[k as ExtraRatioKey] = v;
    }
    return out;
  } catch {
    return {};
  }
}

export function presentPrice(row: PriceRow): PriceView {
  return {
    model: row.model,
    type: row.type as PriceType,
    channel_type: row.channel_type,
    input: row.input,
    output: row.output,
    locked: row.locked === 1,
    extra_ratios: extraRatios(row.extra_ratios),
  };
}

/** The stored form of a validated price. */
export function priceRow(p: PriceInput): PriceRow {
  return {
    model: p.model,
    type: p.type,
    channel_type: p.channel_type,
    input: p.input,
    output: p.output,
    locked: p.locked ? 1 : 0,
    extra_ratios: JSON.stringify(p.extra_ratios),
  };
}
