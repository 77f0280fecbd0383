import { MODEL_OWNER_MIN_CUSTOM_ID, type ModelOwnerInput, modelOwnerInput } from '@switchyard/domain';
import { isUniqueViolation } from '../../db/dialect.js';
import type { ModelOwnerRow } from '../../db/tables.js';
import { ApiError } from '../../http/api-error.js';
import type { RouteContext } from '../../http/route.js';
import { audit } from '../audit.js';
import type { IdParams } from '../validation.js';

// Model owners. Ids up to 1000 are the provider types, seeded from the catalog:
// they can be neither created, changed nor deleted here. An owner's id never changes (PUT finds
// the owner by it). Prices name their owner by id, so an owner that prices still name stays.

export const modelOwnerBody = modelOwnerInput;

function present(row: ModelOwnerRow) {
  return { id: row.id, name: row.name, icon: row.icon };
}

function refuseReserved(id: number, what: string): void {
  if (id < MODEL_OWNER_MIN_CUSTOM_ID)
    throw ApiError.conflict(`Model owner ${id} belongs to a provider type and cannot be ${what}`);
}

export async function getModelOwner({ s, params }: RouteContext<unknown, unknown, IdParams>) {
  const row = await s.repos.modelOwners.byId(params.id);
  if (!row) throw ApiError.notFound('Model owner not found');
  return present(row);
}

/** GET /api/ownedby: owners keyed by id, for screens that resolve a price's owner. */
export async function modelOwnerMap({ s }: RouteContext<unknown, unknown, unknown>) {
  const out: Record<string, ReturnType<typeof present>> = {};
  for (const row of await s.repos.modelOwners.all()) out[row.id] = present(row);
  return out;
}

export async function createModelOwner({
  s,
  caller,
  ip,
  body,
}: RouteContext<ModelOwnerInput, unknown, unknown>) {
  const exists = () => ApiError.conflict(`A model owner with id ${body.id} already exists`);
  if (await s.repos.modelOwners.byId(body.id)) throw exists();
  const row = { id: body.id, name: body.name, icon: body.icon };
  try {
    await s.repos.modelOwners.insert(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw exists();
    throw err;
  }
  await audit(s, caller, ip, 'model_owner.create', { type: 'model_owner', id: row.id }, { name: row.name });
  return present(row);
}

export async function updateModelOwner({
  s,
  caller,
  ip,
  body,
}: RouteContext<ModelOwnerInput, unknown, unknown>) {
  // The schema already refuses reserved ids; this keeps the rule true whatever the schema becomes.
  refuseReserved(body.id, 'changed');
  if (!(await s.repos.modelOwners.update(body.id, { name: body.name, icon: body.icon })))
    throw ApiError.notFound('Model owner not found');
  await audit(s, caller, ip, 'model_owner.update', { type: 'model_owner', id: body.id }, { name: body.name });
  return present({ id: body.id, name: body.name, icon: body.icon });
}

export async function deleteModelOwner({ s, caller, ip, params }: RouteContext<unknown, unknown, IdParams>) {
  refuseReserved(params.id, 'deleted');
  const row = await s.repos.modelOwners.byId(params.id);
  if (!row) throw ApiError.notFound('Model owner not found');
  const prices = await s.repos.modelOwners.priceCount(row.id);
  if (prices > 0) {
    throw ApiError.conflict(
      `Model owner "${row.name}" is still named by ${prices} price${prices === 1 ? '' : 's'}; change those first`,
    );
  }
  if (!(await s.repos.modelOwners.delete(row.id))) throw ApiError.notFound('Model owner not found');
  await audit(s, caller, ip, 'model_owner.delete', { type: 'model_owner', id: row.id }, { name: row.name });
  return null;
}
