import { z } from 'zod';

// Username at least 3 characters, password at least 8. The upper bounds keep rows
// and argon2 work bounded.
export const USERNAME_MIN = 3;
export const USERNAME_MAX = 32;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const DISPLAY_NAME_MAX = 32;
export const EMAIL_MAX = 100;

export const username = z
  .string()
  .trim()
  .min(USERNAME_MIN, `Username must be at least ${USERNAME_MIN} characters`)
  .max(USERNAME_MAX, `Username must be at most ${USERNAME_MAX} characters`)
  .regex(/^[\p{L}\p{N}_.-]+$/u, 'Username may contain only letters, digits, "_", "." and "-"');

export const password = z
  .string()
  .min(PASSWORD_MIN, `Password must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`);

export const email = z.string().trim().max(EMAIL_MAX).email('Invalid email address');
export const displayName = z.string().trim().max(DISPLAY_NAME_MAX);

export const loginInput = z.object({
  username: z.string().trim().min(1, 'Username or email is required').max(EMAIL_MAX),
  password: z.string().min(1, 'Password is required').max(PASSWORD_MAX),
});
export type LoginInput = z.infer<typeof loginInput>;

export const registerInput = z.strictObject({
  username,
  password,
  email: email.optional().or(z.literal('')),
  verification_code: z.string().trim().max(32).optional(),
  aff_code: z.string().trim().max(32).optional(),
});
export type RegisterInput = z.infer<typeof registerInput>;

/** The console's register form adds a confirmation that must match. */
export const registerForm = registerInput
  .extend({ password2: z.string() })
  .refine((v) => v.password === v.password2, { message: 'Passwords do not match', path: ['password2'] });

export const updateSelfInput = z.strictObject({
  username: username.optional(),
  display_name: displayName.optional(),
  password: password.optional().or(z.literal('')),
});
export type UpdateSelfInput = z.infer<typeof updateSelfInput>;

/** The console's profile form: the username must be filled in; an empty password keeps the old one. */
export const profileForm = updateSelfInput.extend({ username, display_name: displayName });
export type ProfileForm = z.infer<typeof profileForm>;

export const resetRequestInput = z.object({ email });
export const resetConfirmInput = z.strictObject({ email, token: z.string().trim().min(1).max(128) });

/** What the server sends about the signed-in user (never the password hash or access token). */
export interface SelfUser {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  email: string;
  avatar_url: string;
  group: string;
  quota: number;
  used_quota: number;
  request_count: number;
  aff_code: string;
  inviter_id: number;
  github_id: string;
  wechat_id: string;
  lark_id: string;
  oidc_id: string;
  telegram_id: number;
  has_access_token: boolean;
  created_time: number;
  last_login_time: number;
}
