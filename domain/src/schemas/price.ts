import { z } from 'zod';
import { PriceType } from '../enums.js';
import { MODEL_NAME_MAX, modelNameProblem } from './channel.js';

// Prices: bodies of the /api/prices endpoints,
// shared with the console's pricing forms. Whether `channel_type` names an existing model owner is
// checked by the server.

/** Special token kinds that may carry their own multiplier, each tied to the input or output side. */
export const EXTRA_RATIO_KEYS = [
  'cached_tokens',
  'cached_write_tokens',
  'cached_read_tokens',
  'input_audio_tokens',
  'output_audio_tokens',
  'reasoning_tokens',
  'input_text_tokens',
  'output_text_tokens',
  'input_image_tokens',
  'output_image_tokens',
] as const;
export type ExtraRatioKey = (typeof EXTRA_RATIO_KEYS)[number];

/** A price's model: required, a trailing `*` makes it a wildcard. */
export const priceModel = z
  .string({ error: 'Model is required' })
  .trim()
  .min(1, 'Model is required')
  .max(MODEL_NAME_MAX)
  .superRefine((m, ctx) => {
    const problem = modelNameProblem(m);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const ratio = (what: string) =>
  z
    .number({ error: `${what} is required` })
    .min(0, `${what} cannot be negative`)
    .max(1_000_000, `${what} is too large`);

const KNOWN_EXTRA_RATIOS = new Set<string>(EXTRA_RATIO_KEYS);

export const extraRatios = z
  .record(z.string(), ratio('An extra ratio'))
  .superRefine((ratios, ctx) => {
    for (const key of Object.keys(ratios)) {
      if (!KNOWN_EXTRA_RATIOS.has(key))
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `Unknown extra ratio "${key}"; known: ${EXTRA_RATIO_KEYS.join(', ')}`,
        });
    }
  })
  .transform((ratios) => ratios as Partial<Record<ExtraRatioKey, number>>);

/** Everything of a price except its model (the batch editor applies one price to many models). */
export const priceFields = z.strictObject({
  type: z.enum([PriceType.Tokens, PriceType.Times], { error: 'type must be "tokens" or "times"' }),
  channel_type: z.number({ error: 'Channel type is required' }).int().min(0),
  input: ratio('Input'),
  output: ratio('Output'),
  locked: z.boolean().default(false),
  extra_ratios: extraRatios.default({}),
});

export const priceInput = priceFields.extend({ model: priceModel });
export type PriceInput = z.infer<typeof priceInput>;

const modelNames = z.array(priceModel).max(5000);

/** POST /api/prices/multiple: the batch editor's models before and after, with their shared price. */
export const priceMultipleInput = z
  .strictObject({ original_models: modelNames.default([]), models: modelNames, price: priceFields })
  .superRefine((v, ctx) => {
    if (new Set(v.models).size !== v.models.length)
      ctx.addIssue({ code: 'custom', path: ['models'], message: 'A model is listed twice' });
  });
export type PriceMultipleInput = z.infer<typeof priceMultipleInput>;

export const priceDeleteManyInput = z.strictObject({
  models: z.array(z.string().trim().min(1)).min(1, 'At least one model is required').max(5000),
});

export const PRICE_SYNC_MODES = ['add', 'update', 'overwrite'] as const;
export type PriceSyncMode = (typeof PRICE_SYNC_MODES)[number];

/** POST /api/prices/sync: a whole price list, e.g. from a price feed. */
export const priceSyncInput = z
  .array(priceInput)
  .max(20_000)
  .superRefine((rows, ctx) => {
    const seen = new Set<string>();
    rows.forEach((r, i) => {
      if (seen.has(r.model))
        ctx.addIssue({ code: 'custom', path: [i, 'model'], message: `Model "${r.model}" is listed twice` });
      seen.add(r.model);
    });
  });

/** A price as the API shows it. */
export interface PriceView {
  model: string;
  type: PriceType;
  channel_type: number;
  input: number;
  output: number;
  locked: boolean;
  extra_ratios: Partial<Record<ExtraRatioKey, number>>;
}
