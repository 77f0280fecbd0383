import type { PriceView } from '@switchyard/domain';

// Grouped batch editing of prices: models whose prices are identical in every field are one
// row, edited together through POST /api/prices/multiple.

export interface PriceGroup {
  /** Stable identity of the shared price. */
  key: string;
  price: Omit<PriceView, 'model'>;
  models: string[];
}

export function priceKey(p: Omit<PriceView, 'model'>): string {
  const extras = Object.entries(p.extra_ratios)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([p.type, p.channel_type, p.input, p.output, p.locked, extras]);
}

export function groupPrices(prices: readonly PriceView[]): PriceGroup[] {
  const groups = new Map<string, PriceGroup>();
  for (const { model, ...price } of prices) {
    const key = priceKey(price);
    const group = groups.get(key);
    if (group) group.models.push(model);
    else groups.set(key, { key, price, models: [model] });
  }
  for (const g of groups.values()) g.models.sort();
  return [...groups.values()];
}
