import { z } from 'zod';
import { displayName, email, password, type SelfUser, username } from './user.js';
import { GROUP_SYMBOL_MAX } from './user-group.js';

// Users as administrators manage them: bodies of the
// /api/user admin endpoints, shared with the console's user forms. Role rules (nobody acts on an
// equal or higher role, root is untouchable) and balances need the database; the server checks them.

/** Largest single quota adjustment: far above any real top-up, far below 2^53 after many of them. */
export const QUOTA_ADJUST_MAX = 1_000_000_000_000_000;
export const QUOTA_REMARK_MAX = 200;

/** The user's group: it must name an existing, enabled group (checked by the server). */
const group = z
  .string({ error: 'Group is required' })
  .trim()
  .min(1, 'Group is required')
  .max(GROUP_SYMBOL_MAX, `Group must be at most ${GROUP_SYMBOL_MAX} characters`);

/**
 * POST /api/user/: a new common user. Without a group the user goes to `default`, as one-hub's
 * management API does (scripts written for it send only username, password and display_name).
 */
export const userCreateInput = z.strictObject({
  username,
  password,
  display_name: displayName.optional(),
  group: group.default('default'),
});
export type UserCreateInput = z.infer<typeof userCreateInput>;

const QUOTA_NOT_EDITABLE =
  'quota cannot be changed by an edit; use the quota adjustment (POST /api/user/quota/:id) with a remark';

/**
 * PUT /api/user/: username, display name, email, group and (when not empty) password. Quota is
 * never written here: a body carrying it is refused, not silently ignored (one-hub ignored it and
 * still logged a quota change).
 */
export const userUpdateInput = z.strictObject({
  id: z.number({ error: 'id is required' }).int().positive('id is required'),
  username,
  display_name: displayName.optional(),
  /** Empty or left out keeps the current password. */
  password: password.optional().or(z.literal('')),
  email: email.optional().or(z.literal('')),
  group,
  quota: z.never({ error: QUOTA_NOT_EDITABLE }).optional(),
});
export type UserUpdateInput = z.infer<typeof userUpdateInput>;

export const USER_MANAGE_ACTIONS = ['enable', 'disable', 'delete', 'promote', 'demote'] as const;
export type UserManageAction = (typeof USER_MANAGE_ACTIONS)[number];

/** POST /api/user/manage: the target by username (as the console sends it) or by id. */
export const userManageInput = z
  .strictObject({
    id: z.number().int().positive('id must be a positive number').optional(),
    username: z.string().trim().min(1, 'Username is required').max(191).optional(),
    action: z.enum(USER_MANAGE_ACTIONS, {
      error: `action must be one of ${USER_MANAGE_ACTIONS.join(', ')}`,
    }),
  })
  .refine((v) => v.id !== undefined || v.username !== undefined, {
    message: 'Give the user by username or id',
    path: ['username'],
  });
export type UserManageInput = z.infer<typeof userManageInput>;

/**
 * POST /api/user/quota/:id: add (positive) or deduct (negative) quota. The amount must be
 * filled in; the server refuses to deduct more than the balance.
 */
export const userQuotaInput = z.strictObject({
  quota: z
    .number({ error: 'The quota change is required' })
    .int('The quota change must be a whole number')
    .min(-QUOTA_ADJUST_MAX, 'The quota change is too large')
    .max(QUOTA_ADJUST_MAX, 'The quota change is too large')
    .refine((v) => v !== 0, 'The quota change cannot be 0'),
  remark: z
    .string()
    .trim()
    .max(QUOTA_REMARK_MAX, `The remark must be at most ${QUOTA_REMARK_MAX} characters`)
    .default(''),
});
export type UserQuotaInput = z.infer<typeof userQuotaInput>;

/** A user as the admin screens see it: the profile fields plus the last sign-in address. */
export interface UserAdminView extends SelfUser {
  last_login_ip: string;
}

/** The answer of POST /api/user/manage: the target's role and status afterwards. */
export interface UserManageResult {
  role: number;
  status: number;
}

/** The answer of POST /api/user/quota/:id. */
export interface UserQuotaResult {
  quota: number;
}
