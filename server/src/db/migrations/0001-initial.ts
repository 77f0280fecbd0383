import type { Kysely, Migration } from 'kysely';
import { columnTypes, type DialectName, idColumn, idType, tableOptions } from '../dialect.js';

// Creates every entity, with one-hub's table and column names where it has them. Later changes go
// in new files; this one never changes once released.

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

export function initialMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  const id = idColumn(dialect);
  const create = (db: AnyDb, name: string) =>
    tableOptions(dialect, db.schema.createTable(name).ifNotExists());
  const index = (db: AnyDb, name: string, table: string, columns: string[], unique = false) => {
    let b = db.schema.createIndex(name).on(table).columns(columns);
    if (unique) b = b.unique();
    // MySQL has no CREATE INDEX IF NOT EXISTS before 8.0.29 (MariaDB has it); the migrator's lock and
    // ledger already guarantee each index is created once.
    return dialect === 'mysql' ? b : b.ifNotExists();
  };

  return {
    async up(db: AnyDb) {
      await create(db, 'users')
        .addColumn('id', idType(dialect), id)
        .addColumn('username', t.shortText, (c) => c.notNull())
        .addColumn('password_hash', t.shortText, (c) => c.notNull())
        .addColumn('display_name', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('role', t.int, (c) => c.notNull().defaultTo(1))
        .addColumn('status', t.int, (c) => c.notNull().defaultTo(1))
        .addColumn('email', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('avatar_url', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('github_id', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('wechat_id', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('lark_id', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('oidc_id', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('telegram_id', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('access_token_hash', t.shortText)
        .addColumn('quota', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('used_quota', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('request_count', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('group', t.shortText, (c) => c.notNull().defaultTo('default'))
        .addColumn('aff_code', t.shortText, (c) => c.notNull())
        .addColumn('inviter_id', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('last_login_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('last_login_ip', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('created_time', t.bigint, (c) => c.notNull())
        .addColumn('deleted_at', t.bigint)
        .execute();
      await index(db, 'users_username_uq', 'users', ['username'], true).execute();
      await index(db, 'users_aff_code_uq', 'users', ['aff_code'], true).execute();
      await index(db, 'users_access_token_uq', 'users', ['access_token_hash'], true).execute();
      await index(db, 'users_email_idx', 'users', ['email']).execute();
      await index(db, 'users_inviter_idx', 'users', ['inviter_id']).execute();

      await create(db, 'sessions')
        .addColumn('id_hash', t.shortText, (c) => c.primaryKey())
        .addColumn('user_id', t.bigint, (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('expires_at', t.bigint, (c) => c.notNull())
        .addColumn('last_seen_at', t.bigint, (c) => c.notNull())
        .addColumn('ip', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('user_agent', t.shortText, (c) => c.notNull().defaultTo(''))
        .execute();
      await index(db, 'sessions_user_idx', 'sessions', ['user_id']).execute();
      await index(db, 'sessions_expires_idx', 'sessions', ['expires_at']).execute();

      await create(db, 'tokens')
        .addColumn('id', idType(dialect), id)
        .addColumn('user_id', t.bigint, (c) => c.notNull())
        .addColumn('name', t.shortText, (c) => c.notNull())
        .addColumn('key_hash', t.shortText, (c) => c.notNull())
        .addColumn('key_sealed', t.longText, (c) => c.notNull())
        .addColumn('status', t.int, (c) => c.notNull().defaultTo(1))
        .addColumn('created_time', t.bigint, (c) => c.notNull())
        .addColumn('accessed_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('expired_time', t.bigint, (c) => c.notNull().defaultTo(-1))
        .addColumn('remain_quota', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('unlimited_quota', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('used_quota', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('group', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('models', t.longText)
        .addColumn('subnet', t.longText, (c) => c.notNull())
        .addColumn('deleted_at', t.bigint)
        .execute();
      await index(db, 'tokens_key_hash_uq', 'tokens', ['key_hash'], true).execute();
      await index(db, 'tokens_user_idx', 'tokens', ['user_id', 'deleted_at']).execute();
      await index(db, 'tokens_name_idx', 'tokens', ['name']).execute();

      await create(db, 'channels')
        .addColumn('id', idType(dialect), id)
        .addColumn('type', t.int, (c) => c.notNull().defaultTo(1))
        .addColumn('key_sealed', t.longText, (c) => c.notNull())
        .addColumn('status', t.int, (c) => c.notNull().defaultTo(1))
        .addColumn('name', t.shortText, (c) => c.notNull())
        .addColumn('weight', t.int, (c) => c.notNull().defaultTo(1))
        .addColumn('created_time', t.bigint, (c) => c.notNull())
        .addColumn('test_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('response_time', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('base_url', t.longText, (c) => c.notNull())
        .addColumn('other', t.longText, (c) => c.notNull())
        .addColumn('balance', t.double, (c) => c.notNull().defaultTo(0))
        .addColumn('balance_updated_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('models', t.longText, (c) => c.notNull())
        // A list of groups: text, not one-hub's varchar(32), which truncates long lists.
        .addColumn('group', t.longText, (c) => c.notNull())
        .addColumn('tag', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('used_quota', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('model_mapping', t.longText, (c) => c.notNull())
        .addColumn('model_headers', t.longText, (c) => c.notNull())
        .addColumn('custom_parameter', t.longText, (c) => c.notNull())
        .addColumn('priority', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('proxy', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('test_model', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('only_chat', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('pre_cost', t.int, (c) => c.notNull().defaultTo(1))
        .addColumn('plugin', t.longText, (c) => c.notNull())
        .addColumn('deleted_at', t.bigint)
        .execute();
      await index(db, 'channels_name_idx', 'channels', ['name']).execute();
      await index(db, 'channels_tag_idx', 'channels', ['tag']).execute();
      await index(db, 'channels_status_idx', 'channels', ['status', 'deleted_at']).execute();

      await create(db, 'user_groups')
        .addColumn('id', idType(dialect), id)
        .addColumn('symbol', t.shortText, (c) => c.notNull())
        .addColumn('name', t.shortText, (c) => c.notNull())
        .addColumn('ratio', t.double, (c) => c.notNull().defaultTo(1))
        .addColumn('api_rate', t.int, (c) => c.notNull().defaultTo(600))
        .addColumn('public', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('enable', t.int, (c) => c.notNull().defaultTo(1))
        .execute();
      await index(db, 'user_groups_symbol_uq', 'user_groups', ['symbol'], true).execute();

      await create(db, 'prices')
        .addColumn('model', t.shortText, (c) => c.primaryKey())
        .addColumn('type', t.shortText, (c) => c.notNull().defaultTo('tokens'))
        .addColumn('channel_type', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('input', t.double, (c) => c.notNull().defaultTo(0))
        .addColumn('output', t.double, (c) => c.notNull().defaultTo(0))
        .addColumn('locked', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('extra_ratios', t.longText, (c) => c.notNull())
        .execute();

      await create(db, 'model_owners')
        .addColumn('id', t.int, (c) => c.primaryKey())
        .addColumn('name', t.shortText, (c) => c.notNull())
        .addColumn('icon', t.longText, (c) => c.notNull())
        .execute();

      await create(db, 'redemptions')
        .addColumn('id', idType(dialect), id)
        .addColumn('user_id', t.bigint, (c) => c.notNull())
        .addColumn('key_hash', t.shortText, (c) => c.notNull())
        .addColumn('key_sealed', t.longText, (c) => c.notNull())
        .addColumn('status', t.int, (c) => c.notNull().defaultTo(1))
        .addColumn('name', t.shortText, (c) => c.notNull())
        .addColumn('quota', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('created_time', t.bigint, (c) => c.notNull())
        .addColumn('redeemed_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('redeemed_by', t.bigint, (c) => c.notNull().defaultTo(0))
        .execute();
      await index(db, 'redemptions_key_uq', 'redemptions', ['key_hash'], true).execute();
      await index(db, 'redemptions_name_idx', 'redemptions', ['name']).execute();

      await create(db, 'logs')
        .addColumn('id', idType(dialect), id)
        .addColumn('user_id', t.bigint, (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('type', t.int, (c) => c.notNull())
        .addColumn('content', t.longText, (c) => c.notNull())
        .addColumn('username', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('token_id', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('token_name', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('model_name', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('quota', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('prompt_tokens', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('completion_tokens', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('channel_id', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('request_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('first_response_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('is_stream', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('source_ip', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('group', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('metadata', t.longText, (c) => c.notNull())
        .execute();
      // The console filters by time range first and then by one of these; each index leads with
      // the equality column and ends with created_at so range scans stay index-only in order.
      await index(db, 'logs_created_type_idx', 'logs', ['created_at', 'type']).execute();
      await index(db, 'logs_user_created_idx', 'logs', ['user_id', 'created_at']).execute();
      await index(db, 'logs_type_created_idx', 'logs', ['type', 'created_at']).execute();
      await index(db, 'logs_username_model_idx', 'logs', ['username', 'model_name']).execute();
      await index(db, 'logs_token_name_idx', 'logs', ['token_name', 'created_at']).execute();
      await index(db, 'logs_model_created_idx', 'logs', ['model_name', 'created_at']).execute();
      await index(db, 'logs_channel_created_idx', 'logs', ['channel_id', 'created_at']).execute();
      await index(db, 'logs_source_ip_idx', 'logs', ['source_ip', 'created_at']).execute();

      await create(db, 'statistics')
        .addColumn('date', t.shortText, (c) => c.notNull())
        .addColumn('user_id', t.bigint, (c) => c.notNull())
        .addColumn('channel_id', t.bigint, (c) => c.notNull())
        .addColumn('model_name', t.shortText, (c) => c.notNull())
        .addColumn('request_count', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('quota', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('prompt_tokens', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('completion_tokens', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('request_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('statistics_pk', ['date', 'user_id', 'channel_id', 'model_name'])
        .execute();
      await index(db, 'statistics_user_date_idx', 'statistics', ['user_id', 'date']).execute();

      await create(db, 'payments')
        .addColumn('id', idType(dialect), id)
        .addColumn('type', t.shortText, (c) => c.notNull())
        .addColumn('uuid', t.shortText, (c) => c.notNull())
        .addColumn('name', t.shortText, (c) => c.notNull())
        .addColumn('icon', t.longText, (c) => c.notNull())
        .addColumn('notify_domain', t.longText, (c) => c.notNull())
        .addColumn('fixed_fee', t.double, (c) => c.notNull().defaultTo(0))
        .addColumn('percent_fee', t.double, (c) => c.notNull().defaultTo(0))
        .addColumn('currency', t.shortText, (c) => c.notNull().defaultTo('USD'))
        .addColumn('config_sealed', t.longText, (c) => c.notNull())
        .addColumn('sort', t.int, (c) => c.notNull().defaultTo(1))
        .addColumn('enable', t.int, (c) => c.notNull().defaultTo(1))
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addColumn('deleted_at', t.bigint)
        .execute();
      await index(db, 'payments_uuid_uq', 'payments', ['uuid'], true).execute();

      await create(db, 'orders')
        .addColumn('id', idType(dialect), id)
        .addColumn('user_id', t.bigint, (c) => c.notNull())
        .addColumn('gateway_id', t.bigint, (c) => c.notNull())
        .addColumn('trade_no', t.shortText, (c) => c.notNull())
        .addColumn('gateway_no', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('amount', t.bigint, (c) => c.notNull())
        .addColumn('order_amount', t.double, (c) => c.notNull())
        .addColumn('order_currency', t.shortText, (c) => c.notNull())
        .addColumn('quota', t.bigint, (c) => c.notNull())
        .addColumn('fee', t.double, (c) => c.notNull().defaultTo(0))
        .addColumn('discount', t.double, (c) => c.notNull().defaultTo(0))
        .addColumn('status', t.shortText, (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await index(db, 'orders_trade_no_uq', 'orders', ['trade_no'], true).execute();
      await index(db, 'orders_user_idx', 'orders', ['user_id', 'created_at']).execute();
      await index(db, 'orders_gateway_no_idx', 'orders', ['gateway_no']).execute();

      await create(db, 'midjourneys')
        .addColumn('id', idType(dialect), id)
        .addColumn('code', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('user_id', t.bigint, (c) => c.notNull())
        .addColumn('token_id', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('action', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('mj_id', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('prompt', t.longText, (c) => c.notNull())
        .addColumn('prompt_en', t.longText, (c) => c.notNull())
        .addColumn('description', t.longText, (c) => c.notNull())
        .addColumn('state', t.longText, (c) => c.notNull())
        .addColumn('submit_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('start_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('finish_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('image_url', t.longText, (c) => c.notNull())
        .addColumn('status', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('progress', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('fail_reason', t.longText, (c) => c.notNull())
        .addColumn('channel_id', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('quota', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('buttons', t.longText, (c) => c.notNull())
        .addColumn('properties', t.longText, (c) => c.notNull())
        .addColumn('mode', t.shortText, (c) => c.notNull().defaultTo(''))
        .execute();
      await index(db, 'midjourneys_user_idx', 'midjourneys', ['user_id', 'submit_time']).execute();
      await index(db, 'midjourneys_mj_id_idx', 'midjourneys', ['mj_id']).execute();
      await index(db, 'midjourneys_progress_idx', 'midjourneys', ['progress']).execute();

      await create(db, 'tasks')
        .addColumn('id', idType(dialect), id)
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addColumn('task_id', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('platform', t.shortText, (c) => c.notNull())
        .addColumn('user_id', t.bigint, (c) => c.notNull())
        .addColumn('token_id', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('channel_id', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('quota', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('action', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('status', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('fail_reason', t.longText, (c) => c.notNull())
        .addColumn('submit_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('start_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('finish_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('progress', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('properties', t.longText, (c) => c.notNull())
        .addColumn('data', t.longText, (c) => c.notNull())
        .addColumn('notify_hook', t.longText, (c) => c.notNull())
        .execute();
      await index(db, 'tasks_user_idx', 'tasks', ['user_id', 'submit_time']).execute();
      await index(db, 'tasks_task_id_idx', 'tasks', ['platform', 'task_id']).execute();
      await index(db, 'tasks_progress_idx', 'tasks', ['progress']).execute();

      await create(db, 'telegram_menus')
        .addColumn('id', idType(dialect), id)
        .addColumn('command', t.shortText, (c) => c.notNull())
        .addColumn('description', t.shortText, (c) => c.notNull())
        .addColumn('parse_mode', t.shortText, (c) => c.notNull().defaultTo('MarkdownV2'))
        .addColumn('reply_message', t.longText, (c) => c.notNull())
        .execute();
      await index(db, 'telegram_menus_command_uq', 'telegram_menus', ['command'], true).execute();

      await create(db, 'options')
        .addColumn('key', t.shortText, (c) => c.primaryKey())
        .addColumn('value', t.longText, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();

      await create(db, 'audit_logs')
        .addColumn('id', idType(dialect), id)
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('actor_id', t.bigint, (c) => c.notNull())
        .addColumn('actor_name', t.shortText, (c) => c.notNull())
        .addColumn('action', t.shortText, (c) => c.notNull())
        .addColumn('target_type', t.shortText, (c) => c.notNull())
        .addColumn('target_id', t.shortText, (c) => c.notNull())
        .addColumn('detail', t.longText, (c) => c.notNull())
        .addColumn('ip', t.shortText, (c) => c.notNull())
        .execute();
      await index(db, 'audit_logs_created_idx', 'audit_logs', ['created_at']).execute();
      await index(db, 'audit_logs_actor_idx', 'audit_logs', ['actor_id', 'created_at']).execute();
    },

    async down(db: AnyDb) {
      for (const table of [
        'audit_logs',
        'options',
        'telegram_menus',
        'tasks',
        'midjourneys',
        'orders',
        'payments',
        'statistics',
        'logs',
        'redemptions',
        'model_owners',
        'prices',
        'user_groups',
        'channels',
        'tokens',
        'sessions',
        'users',
      ]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
