import { createHash, timingSafeEqual } from 'node:crypto';
import {
  ErrorCode,
  type LogEvent,
  LogType,
  loginInput,
  type RegisterInput,
  Role,
  registerInput,
  resetConfirmInput,
  UserStatus,
} from '@switchyard/domain';
import { z } from 'zod';
import {
  newAffCode,
  newRandomPassword,
  newResetToken,
  newVerificationCode,
} from '../../auth/random-codes.js';
import { clearSessionCookie, setSessionCookie } from '../../auth/session-cookie.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { NewLog } from '../../db/queries/logs.js';
import { balanceLogRow, newUserRow } from '../../db/queries/users.js';
import type { NewUser, UserRow } from '../../db/tables.js';
import { ApiError } from '../../http/api-error.js';
import { type RouteContext, WithMessage } from '../../http/route.js';
import type { Services } from '../../services.js';
import { presentSignedIn } from '../users/user-presenter.js';

const VERIFICATION_TTL_SECONDS = 10 * 60;
const RESET_TTL_SECONDS = 15 * 60;

export const turnstileQuery = z.object({ turnstile: z.string().max(4096).optional() });
export const emailQuery = turnstileQuery.extend({
  email: z.string().trim().max(100).email('Invalid email address'),
});

async function checkTurnstile(s: Services, token: string | undefined, ip: string) {
  const o = s.options.current;
  if (!o.TurnstileCheckEnabled) return;
  if (!(await s.turnstile.verify(token ?? '', o.TurnstileSecretKey, ip))) {
    throw new ApiError(403, ErrorCode.turnstileFailed, 'The bot check failed; please retry');
  }
}

function checkEmailDomain(s: Services, email: string) {
  const o = s.options.current;
  if (!o.EmailDomainRestrictionEnabled) return;
  const domain = email.split('@').pop()?.toLowerCase() ?? '';
  const allowed = o.EmailDomainWhitelist.split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  if (!allowed.includes(domain)) {
    throw new ApiError(
      403,
      ErrorCode.emailDomainNotAllowed,
      `Email addresses at ${domain} are not accepted here`,
    );
  }
}

function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

export async function register({
  s,
  body,
  query,
  ip,
}: RouteContext<RegisterInput, { turnstile?: string }, unknown>) {
  const o = s.options.current;
  if (!o.RegisterEnabled || !o.PasswordRegisterEnabled) {
    throw ApiError.forbidden('Registration is closed by the administrator', ErrorCode.registrationDisabled);
  }
  await checkTurnstile(s, query.turnstile, ip);
  const email = body.email ?? '';
  if (o.EmailVerificationEnabled) {
    if (!email || !body.verification_code) {
      throw new ApiError(400, ErrorCode.verificationRequired, 'Email and verification code are required');
    }
    checkEmailDomain(s, email);
    const expected = await s.codes.take(`verify:${email.toLowerCase()}`);
    if (!expected || !sameSecret(expected, body.verification_code)) {
      throw new ApiError(
        400,
        ErrorCode.invalidVerificationCode,
        'The verification code is wrong or has expired',
      );
    }
  }
  if (await s.repos.users.usernameTaken(body.username)) {
    throw ApiError.conflict('This username is already taken', ErrorCode.usernameTaken);
  }
  if (email && (await s.repos.users.byEmail(email))) {
    throw ApiError.conflict('This email address is already registered', ErrorCode.emailTaken);
  }
  const inviter = await inviterOf(s, body.aff_code);
  const passwordHash = await s.passwords.hash(body.password);
  const now = s.clock.nowSeconds();
  for (let attempt = 0; ; attempt++) {
    try {
      const { id } = await insertSignup(
        s,
        { username: body.username, password_hash: passwordHash, email },
        inviter,
        now,
      );
      return { id };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Either a concurrent sign-up took the username, or (rarely) the invite code collided. The
      // transaction rolled back, so nobody was paid.
      if (await s.repos.users.usernameTaken(body.username)) {
        throw ApiError.conflict('This username is already taken', ErrorCode.usernameTaken);
      }
      if (attempt >= 3) throw err;
    }
  }
}

/**
 * The account an invite code names, when it may earn the reward. An unknown or stale code (a link
 * kept in the browser) never blocks a sign-up: it only earns nothing; a disabled inviter neither.
 */
export async function inviterOf(s: Services, affCode: string | undefined): Promise<UserRow | undefined> {
  const found = affCode ? await s.repos.users.byAffCode(affCode) : undefined;
  return found?.status === UserStatus.Enabled ? found : undefined;
}

/**
 * Inserts a new common user with the sign-up credits (QuotaForNewUser, QuotaForInvitee) and pays the
 * inviter in the same transaction, with their log rows. Throws the unique violation of a taken name.
 */
export function insertSignup(
  s: Services,
  fields: Pick<NewUser, 'username' | 'password_hash'> & Partial<NewUser>,
  inviter: UserRow | undefined,
  now: number,
): Promise<{ id: number }> {
  const o = s.options.current;
  const inviteeQuota = inviter ? o.QuotaForInvitee : 0;
  return s.repos.users.insertWithRewards(
    newUserRow({
      ...fields,
      role: Role.Common,
      quota: o.QuotaForNewUser + inviteeQuota,
      aff_code: newAffCode(),
      inviter_id: inviter?.id ?? 0,
      created_time: now,
    }),
    inviter ? { inviterId: inviter.id, quota: o.QuotaForInviter } : undefined,
    (userId, inviterPaid) =>
      signupCreditLogs(
        now,
        { id: userId, username: fields.username },
        {
          newUserQuota: o.QuotaForNewUser,
          inviteeQuota,
          ...(inviter
            ? {
                inviter: {
                  id: inviter.id,
                  username: inviter.username,
                  quota: inviterPaid ? o.QuotaForInviter : 0,
                },
              }
            : {}),
        },
      ),
  );
}

export interface SignupCredits {
  /** `QuotaForNewUser` given to every new account. */
  newUserQuota: number;
  /** `QuotaForInvitee`, when the account signed up with a valid invite code. */
  inviteeQuota: number;
  /** The inviter, and the `QuotaForInviter` it was paid (0 when it was not). */
  inviter?: { id: number; username: string; quota: number };
}

/** The system logs (type 4) of the credits a sign-up gives: one row per non-zero credit. */
export function signupCreditLogs(
  now: number,
  user: { id: number; username: string },
  credits: SignupCredits,
): NewLog[] {
  const rows: NewLog[] = [];
  const log = (userId: number, username: string, quota: number, content: string, metadata: object) =>
    rows.push(
      balanceLogRow({
        user_id: userId,
        username,
        type: LogType.System,
        content,
        quota,
        created_at: now,
        metadata: JSON.stringify(metadata),
      }),
    );
  if (credits.newUserQuota > 0)
    log(user.id, user.username, credits.newUserQuota, `New account bonus: ${credits.newUserQuota} quota`, {
      reason: 'new_user',
      event: { kind: 'signup_bonus' } satisfies LogEvent,
    });
  if (credits.inviteeQuota > 0)
    log(
      user.id,
      user.username,
      credits.inviteeQuota,
      `Invitation bonus for signing up with an invite code: ${credits.inviteeQuota} quota`,
      {
        reason: 'invitee',
        inviter_id: credits.inviter?.id ?? 0,
        event: { kind: 'invitee_bonus' } satisfies LogEvent,
      },
    );
  const inviter = credits.inviter;
  if (inviter && inviter.quota > 0)
    log(
      inviter.id,
      inviter.username,
      inviter.quota,
      `Invitation reward for inviting ${user.username}: ${inviter.quota} quota`,
      {
        reason: 'inviter',
        invitee_id: user.id,
        event: { kind: 'inviter_reward', invitee: user.username } satisfies LogEvent,
      },
    );
  return rows;
}

export const loginBody = loginInput;

export async function login({
  s,
  body,
  ip,
  req,
  reply,
}: RouteContext<z.infer<typeof loginInput>, unknown, unknown>) {
  if (!s.options.current.PasswordLoginEnabled) {
    throw ApiError.forbidden(
      'Password sign-in is turned off by the administrator',
      ErrorCode.passwordLoginDisabled,
    );
  }
  const user = await s.repos.users.byLogin(body.username);
  // Counted by the name as typed, whether or not an account has it: a count shared by an account's
  // username and email would tell which pairs exist (auth/login-backoff.ts).
  const account = `name:${body.username.toLowerCase()}`;
  const wait = await s.loginBackoff.waitSeconds(account);
  if (wait > 0) {
    reply.header('retry-after', String(wait));
    throw ApiError.tooManyRequests(`Too many failed sign-ins for this account: try again in ${wait} s`);
  }
  // Accounts without a password (signed up through a provider) get the same full check.
  const ok = await s.passwords.verify(user?.password_hash || undefined, body.password);
  if (!user || !ok || user.status !== UserStatus.Enabled) {
    await s.loginBackoff.failed(account);
    // One answer for all three cases, so it tells nothing about which accounts exist.
    throw ApiError.unauthorized(
      'Wrong username or password, or the account is disabled',
      ErrorCode.invalidCredentials,
    );
  }
  await s.loginBackoff.succeeded(account);
  const sessionId = await s.sessions.create(user.id, {
    ip,
    userAgent: String(req.headers['user-agent'] ?? ''),
  });
  await s.repos.users.update(user.id, {
    last_login_time: s.clock.nowSeconds(),
    last_login_ip: ip.slice(0, 128),
    // An imported bcrypt hash becomes argon2id now that the password is known to be right.
    ...(s.passwords.needsRehash(user.password_hash)
      ? { password_hash: await s.passwords.hash(body.password) }
      : {}),
  });
  setSessionCookie(s.config, req, reply, sessionId);
  return presentSignedIn(user);
}

export async function logout({ s, caller, reply }: RouteContext<unknown, unknown, unknown>) {
  if (caller?.sessionId) await s.sessions.destroy(caller.sessionId);
  clearSessionCookie(reply);
  return null;
}

export async function sendVerificationCode({
  s,
  query,
  ip,
}: RouteContext<unknown, z.infer<typeof emailQuery>, unknown>) {
  await checkTurnstile(s, query.turnstile, ip);
  const email = query.email.toLowerCase();
  checkEmailDomain(s, email);
  if (await s.repos.users.byEmail(query.email)) {
    throw ApiError.conflict('This email address is already registered', ErrorCode.emailTaken);
  }
  if (!s.mailer.configured()) {
    throw new ApiError(503, ErrorCode.mailNotConfigured, 'Mail is not configured on this server');
  }
  const code = newVerificationCode();
  await s.codes.set(`verify:${email}`, code, VERIFICATION_TTL_SECONDS);
  const name = s.options.current.SystemName;
  await s.mailer.send({
    to: query.email,
    subject: `${name} verification code`,
    html: `<p>Your verification code is <b>${code}</b>. It is valid for 10 minutes.</p>`,
  });
  return new WithMessage(null, 'Verification code sent');
}

export async function requestPasswordReset({
  s,
  query,
  ip,
}: RouteContext<unknown, z.infer<typeof emailQuery>, unknown>) {
  await checkTurnstile(s, query.turnstile, ip);
  if (!s.mailer.configured()) {
    throw new ApiError(503, ErrorCode.mailNotConfigured, 'Mail is not configured on this server');
  }
  const user = await s.repos.users.byEmail(query.email);
  // The same answer whether or not the address has an account: no account discovery by reset form.
  if (user) {
    const token = newResetToken();
    const email = query.email.toLowerCase();
    await s.codes.set(`reset:${email}`, token, RESET_TTL_SECONDS);
    const base = s.options.current.ServerAddress.replace(/\/+$/, '');
    const link = `${base}/user/reset?email=${encodeURIComponent(query.email)}&token=${encodeURIComponent(token)}`;
    await s.mailer.send({
      to: query.email,
      subject: `${s.options.current.SystemName} password reset`,
      html: `<p>Open this link within 15 minutes to reset your password:</p><p><a href="${link}">${link}</a></p>`,
    });
  }
  return new WithMessage(null, 'If this address belongs to an account, a reset link has been sent');
}

export const emailBindQuery = z.object({
  email: z.string().trim().max(100).email('Invalid email address'),
  code: z.string().trim().min(1).max(32),
});

/** Sets the signed-in user's email after the code mailed to it (GET /api/verification) checks out. */
export async function bindEmail({
  s,
  caller,
  query,
}: RouteContext<unknown, z.infer<typeof emailBindQuery>, unknown>) {
  const email = query.email.toLowerCase();
  const expected = await s.codes.take(`verify:${email}`);
  if (!expected || !sameSecret(expected, query.code)) {
    throw new ApiError(
      400,
      ErrorCode.invalidVerificationCode,
      'The verification code is wrong or has expired',
    );
  }
  const owner = await s.repos.users.byEmail(query.email);
  if (owner && owner.id !== caller!.user.id) {
    throw ApiError.conflict('This email address is already registered', ErrorCode.emailTaken);
  }
  await s.repos.users.update(caller!.user.id, { email: query.email });
  return new WithMessage(null, 'bind');
}

export const resetBody = resetConfirmInput;

export async function confirmPasswordReset({
  s,
  body,
}: RouteContext<z.infer<typeof resetConfirmInput>, unknown, unknown>) {
  const email = body.email.toLowerCase();
  const expected = await s.codes.take(`reset:${email}`);
  const user =
    expected && sameSecret(expected, body.token) ? await s.repos.users.byEmail(body.email) : undefined;
  if (!user) throw new ApiError(400, ErrorCode.invalidResetLink, 'The reset link is invalid or has expired');
  const password = newRandomPassword();
  await s.repos.users.update(user.id, { password_hash: await s.passwords.hash(password) });
  // Whoever held the old password loses every session.
  await s.sessions.destroyAllForUser(user.id);
  return password;
}

export { registerInput };
