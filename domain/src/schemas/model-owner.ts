import { z } from 'zod';
import { MODEL_OWNER_MIN_CUSTOM_ID } from '../providers.js';
import type { PriceView } from './price.js';

// Model owners (an id above 1000, unchangeable once set):
// bodies of /api/model_ownedby/, shared with the console's owner form. Ids up to 1000 belong to
// the provider catalog and are seeded by the server.

export const MODEL_OWNER_ID_MAX = 2_000_000_000;
export const MODEL_OWNER_NAME_MAX = 100;
export const MODEL_OWNER_ICON_MAX = 2000;

export const modelOwnerId = z
  .number({ error: 'id is required' })
  .int('id must be a whole number')
  .min(
    MODEL_OWNER_MIN_CUSTOM_ID,
    `Ids up to ${MODEL_OWNER_MIN_CUSTOM_ID - 1} are reserved for provider types`,
  )
  .max(MODEL_OWNER_ID_MAX, `id must be at most ${MODEL_OWNER_ID_MAX}`);

/** POST and PUT /api/model_ownedby/: PUT finds the owner by `id`, which never changes. */
export const modelOwnerInput = z.strictObject({
  id: modelOwnerId,
  name: z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(MODEL_OWNER_NAME_MAX, `Name must be at most ${MODEL_OWNER_NAME_MAX} characters`),
  /** An image URL, or empty for none. */
  icon: z
    .string()
    .trim()
    .max(MODEL_OWNER_ICON_MAX, `Icon must be at most ${MODEL_OWNER_ICON_MAX} characters`)
    .refine((v) => v === '' || /^https?:\/\/\S+$/i.test(v), 'Icon must be an http(s) URL or empty')
    .default(''),
});
export type ModelOwnerInput = z.infer<typeof modelOwnerInput>;

export interface ModelOwnerView {
  id: number;
  name: string;
  icon: string;
}

/** One entry of GET /api/available_model (the price page): who may call a model, who makes it, what it costs. */
export interface AvailableModelView {
  /** Groups (public ones and the caller's own) with an enabled channel serving the model. */
  groups: string[];
  /** The owner's name, from the price's owner id. */
  owned_by: string;
  price: PriceView;
}
