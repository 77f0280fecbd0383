import { z } from 'zod';

// User groups (a name is required): bodies of the
// /api/user_group endpoints, shared with the console's group form. Uniqueness of the symbol and the
// rules about `default` need the database and are checked by the server.

export const GROUP_SYMBOL_MAX = 50;
export const GROUP_NAME_MAX = 50;
export const GROUP_RATIO_MAX = 1000;
/** Requests per minute; 0 switches the group's rate limit off. */
export const GROUP_API_RATE_MAX = 1_000_000;
/** The group every user starts in: it can be neither disabled nor deleted. */
export const DEFAULT_GROUP = 'default';

/**
 * A group symbol: the unique English identifier tokens, users and channels refer to. Channels keep
 * their groups as a comma-separated list, so only letters, digits, `_`, `-` and `.` are allowed.
 */
export const groupSymbol = z
  .string({ error: 'Symbol is required' })
  .trim()
  .min(1, 'Symbol is required')
  .max(GROUP_SYMBOL_MAX, `Symbol must be at most ${GROUP_SYMBOL_MAX} characters`)
  .regex(/^[A-Za-z0-9_.-]+$/, 'Symbol may contain only English letters, digits, "_", "-" and "."');

const groupFields = {
  name: z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(GROUP_NAME_MAX, `Name must be at most ${GROUP_NAME_MAX} characters`),
  ratio: z
    .number({ error: 'Ratio must be a number' })
    .min(0, 'Ratio cannot be negative')
    .max(GROUP_RATIO_MAX, `Ratio must be at most ${GROUP_RATIO_MAX}`),
  api_rate: z
    .number({ error: 'API rate must be a number' })
    .int('API rate must be a whole number of requests per minute')
    .min(0, 'API rate cannot be negative')
    .max(GROUP_API_RATE_MAX, `API rate must be at most ${GROUP_API_RATE_MAX}`),
  public: z.boolean({ error: 'public must be true or false' }),
  enable: z.boolean({ error: 'enable must be true or false' }),
};

/** POST /api/user_group/. */
export const userGroupCreateInput = z.strictObject({
  symbol: groupSymbol,
  name: groupFields.name,
  ratio: groupFields.ratio.default(1),
  api_rate: groupFields.api_rate.default(600),
  public: groupFields.public.default(false),
  enable: groupFields.enable.default(true),
});
export type UserGroupCreateInput = z.infer<typeof userGroupCreateInput>;

/**
 * PUT /api/user_group/: the group named by `id`. The symbol is immutable: it may be sent back
 * unchanged (the console sends the whole row), and the server refuses a different one.
 */
export const userGroupUpdateInput = z.strictObject({
  id: z.number({ error: 'id is required' }).int().positive('id is required'),
  symbol: groupSymbol.optional(),
  name: groupFields.name,
  ratio: groupFields.ratio,
  api_rate: groupFields.api_rate,
  public: groupFields.public,
  enable: groupFields.enable.optional(),
});
export type UserGroupUpdateInput = z.infer<typeof userGroupUpdateInput>;

/** PUT /api/user_group/enable/:id: sets `enable`, or flips it when the body leaves it out. */
export const userGroupEnableInput = z.strictObject({ enable: groupFields.enable.optional() });
export type UserGroupEnableInput = z.infer<typeof userGroupEnableInput>;

export interface UserGroupView {
  id: number;
  symbol: string;
  name: string;
  ratio: number;
  api_rate: number;
  public: boolean;
  enable: boolean;
}
