import { z } from 'zod';
import { isOptionKey, type OptionKey, unknownOptionMessage } from '../options.js';

// Shape of PUT /api/option/. Values stay strings on the wire, as one-hub sends them; their meaning is
// checked afterwards by parseOption, which knows each key's rules.

/** Large enough for a home page or notice in markdown, small enough to keep one row bounded. */
export const OPTION_VALUE_MAX = 100_000;

const optionKey = z
  .string()
  .refine(isOptionKey, { error: (issue) => unknownOptionMessage(String(issue.input)) })
  .transform((k) => k as OptionKey);

const optionValue = z.string().max(OPTION_VALUE_MAX, `Value must be at most ${OPTION_VALUE_MAX} characters`);

export const optionUpdateSingle = z.strictObject({ key: optionKey, value: optionValue });

export const optionUpdateBatch = z.strictObject({
  options: z
    .record(z.string(), optionValue)
    .superRefine((options, ctx) => {
      const keys = Object.keys(options);
      if (keys.length === 0) ctx.addIssue({ code: 'custom', message: 'At least one option is required' });
      for (const key of keys) {
        if (!isOptionKey(key))
          ctx.addIssue({ code: 'custom', message: unknownOptionMessage(key), path: [key] });
      }
    })
    .transform((o) => o as Partial<Record<OptionKey, string>>),
});

export const optionUpdateInput = z.union([optionUpdateSingle, optionUpdateBatch]);

export type OptionUpdateSingle = z.infer<typeof optionUpdateSingle>;
export type OptionUpdateBatch = z.infer<typeof optionUpdateBatch>;
export type OptionUpdateInput = z.infer<typeof optionUpdateInput>;

/** Either body form as a list of key/value pairs, in the order given. */
export function optionUpdates(input: OptionUpdateInput): [OptionKey, string][] {
  if ('key' in input) return [[input.key, input.value]];
  return Object.entries(input.options).filter((e): e is [OptionKey, string] => typeof e[1] === 'string');
}
