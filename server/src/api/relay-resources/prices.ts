import {
  defaultPrices,
  ErrorCode,
  MODEL_NAME_MAX,
  PRICE_SYNC_MODES,
  type PriceInput,
  type PriceMultipleInput,
  type PriceSyncMode,
  type PriceView,
  priceDeleteManyInput,
  priceInput,
  priceMultipleInput,
  priceSyncInput,
} from '@switchyard/domain';
import { z } from 'zod';
import { isUniqueViolation } from '../../db/dialect.js';
import { ApiError } from '../../http/api-error.js';
import type { RouteContext } from '../../http/route.js';
import type { Services } from '../../services.js';
import { audit } from '../audit.js';
import { invalidField } from '../validation.js';
import { presentPrice, priceRow } from './price-presenter.js';

// Prices. Each change is announced on the bus so every node's in-memory price
// table is rebuilt before the next request is billed.

export const PRICES_TOPIC = 'prices';

export const pricesQuery = z.object({
  type: z.enum(['db', 'default'], { error: 'type must be "db" or "default"' }).default('db'),
});
export const priceBody = priceInput;
export const priceMultipleBody = priceMultipleInput;
export const priceDeleteManyBody = priceDeleteManyInput;
export const priceSyncBody = priceSyncInput;
export const priceSyncQuery = z.object({
  updateMode: z
    .enum(PRICE_SYNC_MODES, { error: `updateMode must be one of ${PRICE_SYNC_MODES.join(', ')}` })
    .default('add'),
});
/**
 * `/api/prices/single/*`: the model is the rest of the path, so it may contain `/`. It names a stored
 * price, so only its presence is checked here (a new name is checked in the body).
 */
export const priceModelParams = z.object({
  '*': z.string().min(1, 'The model is missing from the path').max(MODEL_NAME_MAX),
});
type ModelParams = z.infer<typeof priceModelParams>;

const byOwnerThenModel = (a: PriceView, b: PriceView) =>
  a.channel_type - b.channel_type || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0);

/** GET /api/prices (public): the stored table, or the built-in one with `type=default`. */
export async function listPrices({ s, query }: RouteContext<unknown, { type: 'db' | 'default' }, unknown>) {
  if (query.type === 'default') {
    return defaultPrices
      .map(
        (p): PriceView => ({
          model: p.model,
          type: p.type,
          channel_type: p.channel_type,
          input: p.input,
          output: p.output,
          locked: false,
          extra_ratios: { ...p.extra_ratios },
        }),
      )
      .sort(byOwnerThenModel);
  }
  return (await s.repos.prices.all()).map(presentPrice).sort(byOwnerThenModel);
}

/** GET /api/prices/model_list: every priced model plus every model an enabled channel names. */
export async function listPriceModels({ s }: RouteContext<unknown, unknown, unknown>) {
  const models = new Set((await s.repos.prices.all()).map((p) => p.model));
  for (const list of await s.repos.channels.enabledModelLists()) {
    for (const m of list.split(',')) if (m.trim()) models.add(m.trim());
  }
  return [...models].sort();
}

async function checkOwners(
  s: Services,
  rows: readonly { channel_type: number }[],
  path: (i: number) => string,
) {
  const owners = new Set((await s.repos.modelOwners.all()).map((o) => o.id));
  rows.forEach((r, i) => {
    if (!owners.has(r.channel_type)) throw invalidField(path(i), `No model owner has id ${r.channel_type}`);
  });
}

const priceExists = (model: string) =>
  new ApiError(409, ErrorCode.priceExists, `Model "${model}" already has a price`);

async function changed(
  s: Services,
  caller: RouteContext<unknown, unknown, unknown>['caller'],
  ip: string,
  action: string,
  target: string,
  detail: Record<string, unknown>,
) {
  await s.bus.publish(PRICES_TOPIC);
  await audit(s, caller, ip, action, { type: 'price', id: target }, detail);
}

export async function createPrice({ s, caller, ip, body }: RouteContext<PriceInput, unknown, unknown>) {
  await checkOwners(s, [body], () => 'channel_type');
  if (await s.repos.prices.byModel(body.model)) throw priceExists(body.model);
  const row = priceRow(body);
  try {
    await s.repos.prices.insert(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw priceExists(body.model);
    throw err;
  }
  await changed(s, caller, ip, 'price.create', row.model, { price: presentPrice(row) });
  return presentPrice(row);
}

/** PUT /api/prices/single/*: replaces the price of the model in the path; the body may rename it. */
export async function updatePrice({
  s,
  caller,
  ip,
  body,
  params,
}: RouteContext<PriceInput, unknown, ModelParams>) {
  const model = params['*'];
  await checkOwners(s, [body], () => 'channel_type');
  const row = priceRow(body);
  let outcome: 'ok' | 'missing' | 'exists';
  try {
    outcome = await s.repos.prices.replace(model, row);
  } catch (err) {
    if (isUniqueViolation(err)) throw priceExists(row.model);
    throw err;
  }
  if (outcome === 'missing') throw ApiError.notFound(`Model "${model}" has no price`);
  if (outcome === 'exists') throw priceExists(row.model);
  await changed(s, caller, ip, 'price.update', model, { price: presentPrice(row) });
  return presentPrice(row);
}

export async function deletePrice({ s, caller, ip, params }: RouteContext<unknown, unknown, ModelParams>) {
  const model = params['*'];
  if ((await s.repos.prices.deleteMany([model])) === 0)
    throw ApiError.notFound(`Model "${model}" has no price`);
  await changed(s, caller, ip, 'price.delete', model, {});
  return null;
}

/** POST /api/prices/multiple: the batch editor (one price for a group of models). */
export async function updatePrices({
  s,
  caller,
  ip,
  body,
}: RouteContext<PriceMultipleInput, unknown, unknown>) {
  await checkOwners(s, [body.price], () => 'price.channel_type');
  const { model: _, ...values } = priceRow({ ...body.price, model: '' });
  const result = await s.repos.prices.applyMultiple(body.original_models, body.models, values);
  if (result.taken.length > 0)
    throw new ApiError(
      409,
      ErrorCode.priceExists,
      `These models already have their own price: ${result.taken.join(', ')}`,
    );
  await changed(s, caller, ip, 'price.multiple', body.models.join(',').slice(0, 180), {
    original_models: body.original_models,
    models: body.models,
  });
  return { deleted: result.deleted, inserted: result.inserted, updated: result.updated };
}

/** PUT /api/prices/multiple/delete: `data` = how many prices were deleted. */
export async function deletePrices({
  s,
  caller,
  ip,
  body,
}: RouteContext<{ models: string[] }, unknown, unknown>) {
  const deleted = await s.repos.prices.deleteMany([...new Set(body.models)]);
  await changed(s, caller, ip, 'price.delete_many', body.models.join(',').slice(0, 180), {
    models: body.models,
    deleted,
  });
  return deleted;
}

/** POST /api/prices/sync?updateMode=: applies a whole price list; locked prices are never touched. */
export async function syncPrices({
  s,
  caller,
  ip,
  body,
  query,
}: RouteContext<PriceInput[], { updateMode: PriceSyncMode }, unknown>) {
  await checkOwners(s, body, (i) => `${i}.channel_type`);
  const result = await s.repos.prices.sync(body.map(priceRow), query.updateMode);
  await changed(s, caller, ip, 'price.sync', query.updateMode, { rows: body.length, ...result });
  return result;
}
