import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

// Row shapes of every table. Times are unix seconds; booleans are 0/1 integers on every engine
// (better-sqlite3 cannot bind JS booleans); JSON is stored as text. Column names follow
// one-hub's where it has the table, so exported data stays familiar.

type Id = Generated<number>;
type Bool = number;

export interface UsersTable {
  id: Id;
  username: string;
  password_hash: string;
  display_name: string;
  role: number;
  status: number;
  email: string;
  avatar_url: string;
  github_id: string;
  wechat_id: string;
  lark_id: string;
  oidc_id: string;
  telegram_id: number;
  access_token_hash: string | null;
  quota: number;
  used_quota: number;
  request_count: number;
  group: string;
  aff_code: string;
  inviter_id: number;
  last_login_time: number;
  last_login_ip: string;
  created_time: number;
  deleted_at: number | null;
}

export interface SessionsTable {
  id_hash: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
  ip: string;
  user_agent: string;
}

/** One-time values shared by every node: verification codes, reset tokens, OAuth states. */
export interface AuthCodesTable {
  key: string;
  value: string;
  expires_at: number;
}

/** A WebAuthn credential (passkey) of a user; the public key is base64url COSE. */
export interface PasskeysTable {
  id: Generated<number>;
  user_id: number;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string;
  alias: string;
  created_time: number;
  last_used_time: number;
}

export interface TokensTable {
  id: Id;
  user_id: number;
  name: string;
  key_hash: string;
  key_sealed: string;
  status: number;
  created_time: number;
  accessed_time: number;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: Bool;
  used_quota: number;
  group: string;
  /** JSON array of allowed model names; null = all. */
  models: string | null;
  /** Comma list of IPs/CIDRs; empty = any. */
  subnet: string;
  deleted_at: number | null;
}

export interface ChannelsTable {
  id: Id;
  type: number;
  key_sealed: string;
  status: number;
  name: string;
  weight: number;
  created_time: number;
  test_time: number;
  response_time: number;
  base_url: string;
  other: string;
  balance: number;
  balance_updated_time: number;
  models: string;
  group: string;
  tag: string;
  used_quota: number;
  model_mapping: string;
  model_headers: string;
  custom_parameter: string;
  priority: number;
  proxy: string;
  test_model: string;
  only_chat: Bool;
  pre_cost: number;
  plugin: string;
  deleted_at: number | null;
}

export interface UserGroupsTable {
  id: Id;
  symbol: string;
  name: string;
  ratio: number;
  api_rate: number;
  public: Bool;
  enable: Bool;
}

export interface PricesTable {
  model: string;
  type: string;
  channel_type: number;
  input: number;
  output: number;
  locked: Bool;
  extra_ratios: string;
}

export interface ModelOwnersTable {
  id: number;
  name: string;
  icon: string;
}

export interface RedemptionsTable {
  id: Id;
  user_id: number;
  key_hash: string;
  key_sealed: string;
  status: number;
  name: string;
  quota: number;
  created_time: number;
  redeemed_time: number;
  redeemed_by: number;
}

export interface LogsTable {
  id: Id;
  user_id: number;
  created_at: number;
  type: number;
  content: string;
  username: string;
  token_id: number;
  token_name: string;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  channel_id: number;
  request_time: number;
  first_response_time: number;
  is_stream: Bool;
  source_ip: string;
  group: string;
  metadata: string;
}

export interface StatisticsTable {
  date: string;
  user_id: number;
  channel_id: number;
  model_name: string;
  request_count: number;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  request_time: number;
}

export interface PaymentsTable {
  id: Id;
  type: string;
  uuid: string;
  name: string;
  icon: string;
  notify_domain: string;
  fixed_fee: number;
  percent_fee: number;
  currency: string;
  config_sealed: string;
  sort: number;
  enable: Bool;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface OrdersTable {
  id: Id;
  user_id: number;
  gateway_id: number;
  trade_no: string;
  gateway_no: string;
  amount: number;
  order_amount: number;
  order_currency: string;
  quota: number;
  fee: number;
  discount: number;
  status: string;
  created_at: number;
  updated_at: number;
}

export interface MidjourneysTable {
  id: Id;
  code: number;
  user_id: number;
  token_id: number;
  action: string;
  mj_id: string;
  prompt: string;
  prompt_en: string;
  description: string;
  state: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  image_url: string;
  status: string;
  progress: string;
  fail_reason: string;
  channel_id: number;
  quota: number;
  buttons: string;
  properties: string;
  mode: string;
}

export interface TasksTable {
  id: Id;
  created_at: number;
  updated_at: number;
  task_id: string;
  platform: string;
  user_id: number;
  token_id: number;
  channel_id: number;
  quota: number;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: number;
  properties: string;
  data: string;
  notify_hook: string;
}

export interface TelegramMenusTable {
  id: Id;
  command: string;
  description: string;
  parse_mode: string;
  reply_message: string;
}

export interface OptionsTable {
  key: string;
  value: string;
  updated_at: number;
}

export interface AuditLogsTable {
  id: Id;
  created_at: number;
  actor_id: number;
  actor_name: string;
  action: string;
  target_type: string;
  target_id: string;
  detail: string;
  ip: string;
}

/** A quota reserve held in the database (PostgreSQL, MySQL) until its settlement; migration 0006. */
export interface ReservesTable {
  /** Made by the node: its boot id and a sequence number. */
  id: string;
  node_id: string;
  user_id: number;
  token_id: number;
  /** 1 when the reserve was also taken from the token's `remain_quota`. */
  token_limited: number;
  amount: number;
  /** Unix seconds; the node renews it while it lives. */
  expires_at: number;
  /** 1 once given back by a start-up or an expiry sweep (the row stays so a late settlement knows). */
  returned: number;
}

/** A slice of a user's and a token's balance one node reserves against in memory; migration 0011. */
export interface QuotaLeasesTable {
  /** Made by the node: its boot id, the user, the token and a generation. */
  id: string;
  node_id: string;
  user_id: number;
  token_id: number;
  /** 1 when the slice was also taken from the token's `remain_quota`. */
  token_limited: number;
  /** What the slice still holds: settlements charged against it take their charge from it. */
  amount: number;
  /** Unix seconds; the node renews it while it lives. */
  expires_at: number;
  /** 1 once given back to the balances (the row stays so a late settlement knows). */
  returned: number;
  /**
   * What the settlements charged against the lease used, and how many they were (migration 0017):
   * added to the user's and token's `used_quota` and the user's `request_count` when the lease is
   * given back; until then every read of those counters adds them.
   */
  used_quota: Generated<number>;
  request_count: Generated<number>;
}

/**
 * Per node, the highest journal number of a settlement charged against a lease; migration 0011.
 * No longer written: read when a journal an older version left is replayed.
 */
export interface LedgerMarksTable {
  node_id: string;
  seq: number;
}

/** Per settlement group, the journal numbers of its settlements without a reserve row; migration 0016. */
export interface LedgerSettledTable {
  node_id: string;
  lo: number;
  hi: number;
  /** Ranges, `4-9,12`. */
  seqs: string;
}

/** A settlement the database refused, kept for an administrator; migration 0007. */
export interface SettlementDeadLettersTable {
  id: Generated<number>;
  created_at: number;
  user_id: number;
  token_id: number;
  channel_id: number;
  reserved: number;
  final_quota: number;
  /** 1 when it was charged after all, with its log row's text cleaned. */
  charged: number;
  error: string;
  /** The consume log row as given, as JSON. */
  log: string;
}

export interface JobLeasesTable {
  name: string;
  holder: string;
  /** Unix milliseconds. */
  expires_at: number;
}

export interface ChangeVersionsTable {
  topic: string;
  version: number;
}

export interface NodeHeartbeatsTable {
  node_id: string;
  /** Unix milliseconds. */
  seen_at: number;
  /** 1 when the node runs with Redis. */
  redis: number;
}

/** A user mailed about a balance below QuotaRemindThreshold (migration 0010); deleted when it is back above. */
export interface QuotaRemindersTable {
  user_id: number;
  sent_at: number;
}

/** A Telegram update a node has taken on (migration 0013): answered once across nodes and retries. */
export interface TelegramUpdatesTable {
  update_id: number;
  node_id: string;
  taken_at: number;
}

export interface Tables {
  job_leases: JobLeasesTable;
  change_versions: ChangeVersionsTable;
  node_heartbeats: NodeHeartbeatsTable;
  quota_reminders: QuotaRemindersTable;
  reserves: ReservesTable;
  quota_leases: QuotaLeasesTable;
  ledger_marks: LedgerMarksTable;
  ledger_settled: LedgerSettledTable;
  settlement_dead_letters: SettlementDeadLettersTable;
  users: UsersTable;
  sessions: SessionsTable;
  tokens: TokensTable;
  channels: ChannelsTable;
  user_groups: UserGroupsTable;
  prices: PricesTable;
  model_owners: ModelOwnersTable;
  redemptions: RedemptionsTable;
  logs: LogsTable;
  statistics: StatisticsTable;
  payments: PaymentsTable;
  orders: OrdersTable;
  midjourneys: MidjourneysTable;
  tasks: TasksTable;
  telegram_menus: TelegramMenusTable;
  telegram_updates: TelegramUpdatesTable;
  options: OptionsTable;
  audit_logs: AuditLogsTable;
  auth_codes: AuthCodesTable;
  passkeys: PasskeysTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserPatch = Updateable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type PasskeyRow = Selectable<PasskeysTable>;
export type NewPasskey = Insertable<PasskeysTable>;
export type OptionRow = Selectable<OptionsTable>;
export type AuditLogRow = Selectable<AuditLogsTable>;
export type UserGroupRow = Selectable<UserGroupsTable>;
export type PriceRow = Selectable<PricesTable>;
export type ModelOwnerRow = Selectable<ModelOwnersTable>;

// Re-exported so query modules need one import for column helpers.
export type { ColumnType };
