import { type AvailableModelView, PriceType, type PriceView } from '@switchyard/domain';
import type { ModelPrice } from '../../billing/pricing/price-book.js';
import type { RouteContext } from '../../http/route.js';
import type { Services } from '../../services.js';

// GET /api/available_model: the price page's list of what can be called, built
// from the relay's in-memory tables so it shows exactly what the relay would route and bill.

/** The price the relay bills `model` at: its own (exact or wildcard), else the unpriced default if served. */
function priceOf(s: Services, model: string): ModelPrice | undefined {
  const price = s.relay.tables.prices.lookup(model);
  if (price) return price;
  const o = s.options.current;
  if (!o.ServeUnpricedModels) return undefined;
  return {
    model,
    type: PriceType.Tokens,
    channelType: 0,
    input: o.UnpricedModelInput,
    output: o.UnpricedModelOutput,
    locked: false,
    extraRatios: {},
  };
}

function priceView(p: ModelPrice): PriceView {
  return {
    model: p.model,
    type: p.type,
    channel_type: p.channelType,
    input: p.input,
    output: p.output,
    locked: p.locked,
    extra_ratios: { ...p.extraRatios },
  };
}

/**
 * Model -> {groups, owned_by, price} over the enabled groups that are public or the caller's own.
 * A group offers a model when an enabled channel of the group serves it: named exactly, or through a
 * wildcard channel for models the price table names. Models the relay would refuse (no price) are
 * left out.
 */
export async function availableModels({ s, caller }: RouteContext<unknown, unknown, unknown>) {
  const { routing, prices, groups } = s.relay.tables;
  const own = caller?.user.group;
  const visible = [...groups.values()]
    .filter((g) => g.enable === 1 && (g.public === 1 || g.symbol === own))
    .map((g) => g.symbol)
    .sort();
  const priced = prices
    .all()
    .map((p) => p.model)
    .filter((m) => !m.endsWith('*'));
  const owners = new Map((await s.repos.modelOwners.all()).map((o) => [o.id, o.name]));

  const out = new Map<string, AvailableModelView>();
  for (const group of visible) {
    const names = new Set(routing.models(group));
    for (const model of priced) if (routing.tiers(group, model)) names.add(model);
    for (const model of names) {
      let entry = out.get(model);
      if (!entry) {
        const price = priceOf(s, model);
        if (!price) continue;
        entry = { groups: [], owned_by: owners.get(price.channelType) ?? 'unknown', price: priceView(price) };
        out.set(model, entry);
      }
      entry.groups.push(group);
    }
  }
  return Object.fromEntries([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
