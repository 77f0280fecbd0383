import { z } from 'zod';
import { TokenStatus } from '../enums.js';

// API tokens: the body of POST /api/token/ and PUT /api/token/, shared with the
// console's token form. Checks that need the server (clock, groups) happen there.

export const TOKEN_NAME_MAX = 30;
/** Upper bounds that keep one row small; far above any real allow-list. */
export const TOKEN_MODELS_MAX = 500;
export const TOKEN_SUBNETS_MAX = 100;
export const NEVER_EXPIRES = -1;

const ipOrCidr = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]);

/** Splits a comma (or newline) separated list, trimming entries and dropping empty ones. */
export function splitList(value: string): string[] {
  return value
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** `"10.0.0.0/8, 192.168.1.7"`: every entry must be an IPv4/IPv6 address or CIDR; stored normalised. */
export const tokenSubnet = z
  .string()
  .max(4000)
  .superRefine((value, ctx) => {
    const entries = splitList(value);
    if (entries.length > TOKEN_SUBNETS_MAX)
      ctx.addIssue({ code: 'custom', message: `At most ${TOKEN_SUBNETS_MAX} addresses or ranges` });
    for (const entry of entries) {
      if (!ipOrCidr.safeParse(entry).success)
        ctx.addIssue({ code: 'custom', message: `"${entry}" is not an IP address or CIDR range` });
    }
  })
  .transform((value) => [...new Set(splitList(value))].join(','));

/**
 * The model allow-list: null (or an empty list) lets the token call every model its group offers;
 * otherwise only the names listed.
 */
export const tokenModels = z
  .array(z.string().trim().min(1, 'Model names cannot be empty').max(191))
  .max(TOKEN_MODELS_MAX, `At most ${TOKEN_MODELS_MAX} models`)
  .nullable()
  .transform((list) => (list && list.length > 0 ? [...new Set(list)] : null));

export const tokenFields = {
  name: z
    .string()
    .trim()
    .min(1, 'Name is required')
    .max(TOKEN_NAME_MAX, `Name must be at most ${TOKEN_NAME_MAX} characters`),
  /** -1 = never; otherwise unix seconds (the server also requires it to be in the future on create). */
  expired_time: z
    .number()
    .int('expired_time must be whole seconds')
    .refine((v) => v === NEVER_EXPIRES || v > 0, 'expired_time must be -1 (never) or a unix time in seconds'),
  remain_quota: z
    .number()
    .int('remain_quota must be a whole number')
    .min(0, 'remain_quota cannot be negative')
    .max(Number.MAX_SAFE_INTEGER),
  unlimited_quota: z.boolean(),
  /** Empty = the owner's own group. */
  group: z.string().trim().max(64),
  models: tokenModels,
  subnet: tokenSubnet,
};

export const tokenCreateInput = z.strictObject({
  ...tokenFields,
  group: tokenFields.group.default(''),
  models: tokenFields.models.default(null),
  subnet: tokenFields.subnet.default(''),
});
export type TokenCreateInput = z.infer<typeof tokenCreateInput>;

/** A user may switch a token on or off; expired and exhausted are states the server sets. */
export const tokenUserStatus = z.union([z.literal(TokenStatus.Enabled), z.literal(TokenStatus.Disabled)], {
  error: 'status must be 1 (enabled) or 2 (disabled)',
});

const tokenId = z.number().int().positive('id is required');

/** PUT /api/token/: the whole token; `status` optional (unchanged when left out). */
export const tokenUpdateInput = tokenCreateInput.extend({ id: tokenId, status: tokenUserStatus.optional() });
export type TokenUpdateInput = z.infer<typeof tokenUpdateInput>;

/**
 * PUT /api/token/?status_only=1: only `id` and `status` are read. Other fields are ignored rather
 * than refused, so a client may send the whole token back with a new status.
 */
export const tokenStatusInput = z.object({ id: tokenId, status: tokenUserStatus });
export type TokenStatusInput = z.infer<typeof tokenStatusInput>;

/** A token as the API shows it: never the key, only a hint of it. */
export interface TokenView {
  id: number;
  user_id: number;
  name: string;
  /** `sk-abcd…wxyz`: enough to recognise a key, not to use it. */
  key_hint: string;
  status: number;
  created_time: number;
  accessed_time: number;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: boolean;
  used_quota: number;
  group: string;
  models: string[] | null;
  subnet: string;
}

/** The answer of POST /api/token/: the only time besides GET /api/token/:id/key that the key is sent. */
export interface CreatedTokenView extends TokenView {
  key: string;
}

/** The name of the token the playground chats with, one per user, created on first use. */
export const PLAYGROUND_TOKEN_NAME = 'sys_playground';
