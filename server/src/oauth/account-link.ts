import { ErrorCode, USERNAME_MAX, USERNAME_MIN, UserStatus } from '@switchyard/domain';
import { insertSignup, inviterOf } from '../api/account/account.js';
import { presentSignedIn } from '../api/users/user-presenter.js';
import { setSessionCookie } from '../auth/session-cookie.js';
import { isUniqueViolation } from '../db/dialect.js';
import type { BindingColumn } from '../db/queries/users.js';
import type { UserRow } from '../db/tables.js';
import { ApiError } from '../http/api-error.js';
import { type RouteContext, WithMessage } from '../http/route.js';
import type { Services } from '../services.js';

export type ProviderName = 'github' | 'lark' | 'oidc' | 'wechat';

export const PROVIDER_LABELS: Record<ProviderName, string> = {
  github: 'GitHub',
  lark: 'Lark',
  oidc: 'OIDC',
  wechat: 'WeChat',
};

export const bindingColumn = (p: ProviderName): BindingColumn => `${p}_id`;

/** Who the provider says signed in: its stable account id and what it tells about the person. */
export interface ExternalIdentity {
  provider: ProviderName;
  id: string;
  /** Preferred username (GitHub login, OIDC claim); a fallback is used when it is unusable or taken. */
  username?: string;
  email?: string;
  displayName?: string;
  avatarUrl?: string;
  /** Ids an older version may have stored for the same account (GitHub's login name). */
  legacyIds?: string[];
}

const USERNAME_CHARS = /^[\p{L}\p{N}_.-]+$/u;

function usableUsername(name: string | undefined): string | undefined {
  const trimmed = name?.trim();
  if (!trimmed || trimmed.length < USERNAME_MIN || trimmed.length > USERNAME_MAX) return undefined;
  return USERNAME_CHARS.test(trimmed) ? trimmed : undefined;
}

/**
 * The rules every provider shares once it has named the account:
 * - signed in already: bind the account to the caller (message `bind`), unless another user has it;
 * - an account bound to a user: sign that user in, unless disabled;
 * - otherwise sign up, when registration is open: the provider's username or `<provider>_<n>`,
 *   `QuotaForNewUser`, the inviter's reward for a valid `aff`.
 */
export async function completeExternalSignIn(
  ctx: Pick<RouteContext<unknown, unknown, unknown>, 's' | 'caller' | 'ip' | 'req' | 'reply'>,
  identity: ExternalIdentity,
  aff: string | undefined,
): Promise<unknown> {
  const { s, caller } = ctx;
  const column = bindingColumn(identity.provider);
  const label = PROVIDER_LABELS[identity.provider];
  const owner = await findOwner(s, identity);
  if (caller) {
    if (owner && owner.id !== caller.user.id) {
      throw ApiError.conflict(
        `This ${label} account is already bound to another user`,
        ErrorCode.oauthAlreadyBound,
      );
    }
    if (!owner) {
      const current = caller.user[column];
      if (!(await s.repos.users.setBinding(caller.user.id, column, identity.id, current))) {
        throw ApiError.conflict('The account changed meanwhile; please try again', ErrorCode.conflict);
      }
    }
    return new WithMessage(null, 'bind');
  }
  return startSession(ctx, owner ?? (await signUp(s, identity, aff)));
}

/** Signs `user` in on this browser (session cookie, last login), unless the account is disabled. */
export async function startSession(
  ctx: Pick<RouteContext<unknown, unknown, unknown>, 's' | 'ip' | 'req' | 'reply'>,
  user: UserRow,
): Promise<unknown> {
  const { s } = ctx;
  if (user.status !== UserStatus.Enabled) {
    throw ApiError.forbidden('This account has been disabled', ErrorCode.userDisabled);
  }
  const sessionId = await s.sessions.create(user.id, {
    ip: ctx.ip,
    userAgent: String(ctx.req.headers['user-agent'] ?? ''),
  });
  await s.repos.users.update(user.id, {
    last_login_time: s.clock.nowSeconds(),
    last_login_ip: ctx.ip.slice(0, 128),
  });
  setSessionCookie(s.config, ctx.req, ctx.reply, sessionId);
  return presentSignedIn(user);
}

/** The user bound to the account; a user found by a legacy id is rebound to the current id. */
async function findOwner(s: Services, identity: ExternalIdentity): Promise<UserRow | undefined> {
  const column = bindingColumn(identity.provider);
  const owner = await s.repos.users.byBinding(column, identity.id);
  if (owner) return owner;
  for (const legacy of identity.legacyIds ?? []) {
    const old = await s.repos.users.byBinding(column, legacy);
    if (old && (await s.repos.users.setBinding(old.id, column, identity.id, legacy))) {
      return { ...old, [column]: identity.id };
    }
  }
  return undefined;
}

async function signUp(s: Services, identity: ExternalIdentity, aff: string | undefined): Promise<UserRow> {
  const o = s.options.current;
  if (!o.RegisterEnabled) {
    throw ApiError.forbidden('Registration is closed by the administrator', ErrorCode.registrationDisabled);
  }
  const inviter = await inviterOf(s, aff);
  const now = s.clock.nowSeconds();
  const preferred = usableUsername(identity.username);
  // An email the provider reports is kept only when no account uses it: it is a sign-in name too.
  const email =
    identity.email && identity.email.length <= 100 && !(await s.repos.users.byEmail(identity.email))
      ? identity.email
      : '';
  for (let attempt = 0; ; attempt++) {
    const username =
      attempt === 0 && preferred && !(await s.repos.users.usernameTaken(preferred))
        ? preferred
        : `${identity.provider}_${(await s.repos.users.maxId()) + 1 + attempt}`;
    try {
      const { id } = await insertSignup(
        s,
        {
          username,
          // No password: this account signs in through its provider until the user sets one.
          password_hash: '',
          email,
          display_name: (identity.displayName?.trim() || username).slice(0, 32),
          avatar_url: (identity.avatarUrl ?? '').slice(0, 500),
          [bindingColumn(identity.provider)]: identity.id,
        },
        inviter,
        now,
      );
      return (await s.repos.users.byId(id))!;
    } catch (err) {
      // A concurrent sign-up took the name (or the invite code collided): try the next name.
      if (!isUniqueViolation(err) || attempt >= 4) throw err;
    }
  }
}

/**
 * Removes a provider binding from the signed-in user, refused when it is the user's last way in
 * (no password, no other binding).
 */
/** Whether the user can sign in without passkeys and without `except`: a password or another binding. */
export function hasOtherWayIn(user: UserRow, except?: ProviderName): boolean {
  if (user.password_hash !== '') return true;
  return (['github', 'lark', 'oidc', 'wechat'] as const).some(
    (p) => p !== except && user[bindingColumn(p)] !== '',
  );
}

export async function unbindProvider(s: Services, user: UserRow, provider: ProviderName): Promise<void> {
  const column = bindingColumn(provider);
  const current = user[column];
  if (!current) throw ApiError.badRequest(`No ${PROVIDER_LABELS[provider]} account is bound`);
  if (!hasOtherWayIn(user, provider) && (await s.repos.passkeys.countForUser(user.id)) === 0) {
    throw new ApiError(
      400,
      ErrorCode.lastSignInMethod,
      'This is your only way to sign in: set a password or bind another account first',
    );
  }
  if (!(await s.repos.users.setBinding(user.id, column, '', current))) {
    throw ApiError.conflict('The account changed meanwhile; please try again', ErrorCode.conflict);
  }
}
