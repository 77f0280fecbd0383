import type { SelfUser, UserAdminView } from '@switchyard/domain';
import type { UserRow } from '../../db/tables.js';

/** The only shapes in which a user row leaves the server: never the hash or token material. */
export function presentSelf(u: UserRow): SelfUser {
  return {
    id: u.id,
    username: u.username,
    display_name: u.display_name,
    role: u.role,
    status: u.status,
    email: u.email,
    avatar_url: u.avatar_url,
    group: u.group,
    quota: u.quota,
    used_quota: u.used_quota,
    request_count: u.request_count,
    aff_code: u.aff_code,
    inviter_id: u.inviter_id,
    github_id: u.github_id,
    wechat_id: u.wechat_id,
    lark_id: u.lark_id,
    oidc_id: u.oidc_id,
    telegram_id: u.telegram_id,
    has_access_token: u.access_token_hash !== null,
    created_time: u.created_time,
    last_login_time: u.last_login_time,
  };
}

/** What sign-in returns and the console stores (it reads role, username and avatar_url). */
export function presentSignedIn(u: UserRow) {
  return {
    id: u.id,
    username: u.username,
    display_name: u.display_name,
    role: u.role,
    status: u.status,
    avatar_url: u.avatar_url,
    group: u.group,
  };
}

/** A user as administrators see it (lists, details, the answer of an edit). */
export function presentUserAdmin(u: UserRow): UserAdminView {
  return { ...presentSelf(u), last_login_ip: u.last_login_ip };
}
