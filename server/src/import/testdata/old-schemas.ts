import type { DialectName } from '../../db/dialect.js';

// The tables of one-hub and one-api as their GORM models create them on each engine (column names,
// types, defaults), written down here so the import tests read a real old database. Only the
// tables the import reads are here.

function types(engine: DialectName) {
  return {
    id: {
      sqlite: 'integer primary key autoincrement',
      postgres: 'bigserial primary key',
      mysql: 'bigint auto_increment primary key',
    }[engine],
    bool: { sqlite: 'numeric', postgres: 'boolean', mysql: 'tinyint(1)' }[engine],
    time: { sqlite: 'datetime', postgres: 'timestamptz', mysql: 'datetime(3)' }[engine],
    text: { sqlite: 'text', postgres: 'text', mysql: 'longtext' }[engine],
    json: { sqlite: 'JSON', postgres: 'json', mysql: 'json' }[engine],
    int: { sqlite: 'integer', postgres: 'bigint', mysql: 'bigint' }[engine],
    float: { sqlite: 'real', postgres: 'decimal', mysql: 'double' }[engine],
    q: (name: string) => (engine === 'mysql' ? `\`${name}\`` : `"${name}"`),
    f: engine === 'postgres' ? 'false' : '0',
  };
}

export function oneHubSchema(engine: DialectName): string[] {
  const { id, bool, time, text, json, int, float, q, f } = types(engine);
  return [
    `create table users (id ${id}, username varchar(191) unique, password ${text} not null,
      display_name varchar(191), role ${int} default 1, status ${int} default 1, email varchar(191),
      avatar_url varchar(500) default '', oidc_id varchar(191), github_id varchar(191),
      github_id_new ${int}, wechat_id varchar(191), telegram_id ${int} default 0, lark_id varchar(191),
      access_token char(32) unique, quota ${int} default 0, used_quota ${int} default 0,
      request_count ${int} default 0, ${q('group')} varchar(32) default 'default',
      aff_code varchar(32) unique, aff_count ${int} default 0, aff_quota ${int} default 0,
      aff_history ${int} default 0, inviter_id ${int}, last_login_time ${int} default 0,
      last_login_ip varchar(128) default '', created_time ${int}, deleted_at ${time})`,
    `create table tokens (id ${id}, user_id ${int}, ${q('key')} varchar(59) unique,
      status ${int} default 1, name varchar(191), created_time ${int}, accessed_time ${int},
      expired_time ${int} default -1, remain_quota ${int} default 0, unlimited_quota ${bool} default ${f},
      used_quota ${int} default 0, ${q('group')} varchar(191) default '', backup_group varchar(191) default '',
      deleted_at ${time}, setting ${json})`,
    `create table channels (id ${id}, type ${int} default 0, ${q('key')} ${text}, status ${int} default 1,
      name varchar(191), weight ${int} default 1, created_time ${int}, test_time ${int},
      response_time ${int}, base_url varchar(191) default '', other ${text}, balance ${float},
      balance_updated_time ${int}, models ${text}, ${q('group')} varchar(32) default 'default',
      tag varchar(32) default '', used_quota ${int} default 0, model_mapping ${text},
      model_headers varchar(1024) default '', custom_parameter varchar(1024) default '',
      priority ${int} default 0, proxy varchar(255) default '', test_model varchar(50) default '',
      only_chat ${bool} default ${f}, pre_cost ${int} default 1, compatible_response ${bool} default ${f},
      allow_extra_body ${bool} default ${f}, disabled_stream ${json}, plugin ${json}, deleted_at ${time})`,
    `create table redemptions (id ${id}, user_id ${int}, ${q('key')} char(32) unique, status ${int} default 1,
      name varchar(191), quota ${int} default 100, created_time ${int}, redeemed_time ${int})`,
    `create table options (${q('key')} varchar(191) primary key, value ${text})`,
    `create table user_groups (id ${id}, symbol varchar(50) unique, name varchar(50),
      ratio decimal(10,2) default 1, api_rate ${int} default 600, public ${bool} default ${f},
      promotion ${bool} default ${f}, min ${int} default 0, max ${int} default 0, enable ${bool})`,
    `create table prices (model varchar(100), type varchar(191) default 'tokens', channel_type ${int} default 0,
      input ${float} default 0, output ${float} default 0, locked ${bool} default ${f}, extra_ratios ${json})`,
    `create table model_ownedby (id ${int}, name varchar(100), icon ${text})`,
    `create table logs (id ${id}, user_id ${int}, created_at ${int}, type ${int}, content ${text},
      username varchar(191) default '', token_name varchar(191) default '', model_name varchar(191) default '',
      quota ${int} default 0, prompt_tokens ${int} default 0, completion_tokens ${int} default 0,
      channel_id ${int}, request_time ${int} default 0, is_stream ${bool} default ${f},
      source_ip varchar(191) default '', metadata ${json})`,
    `create table statistics (date date, user_id ${int}, channel_id ${int}, model_name varchar(255),
      request_count ${int}, quota ${int}, prompt_tokens ${int}, completion_tokens ${int}, request_time ${int},
      primary key (date, user_id, channel_id, model_name))`,
  ];
}

export function oneApiSchema(engine: DialectName): string[] {
  const { id, bool, text, int, float, q, f } = types(engine);
  return [
    `create table users (id ${id}, username varchar(191) unique, password ${text} not null,
      display_name varchar(191), role ${int} default 1, status ${int} default 1, email varchar(191),
      github_id varchar(191), wechat_id varchar(191), lark_id varchar(191), oidc_id varchar(191),
      access_token char(32) unique, quota ${int} default 0, used_quota ${int} default 0,
      request_count ${int} default 0, ${q('group')} varchar(32) default 'default',
      aff_code varchar(32) unique, inviter_id ${int})`,
    `create table tokens (id ${id}, user_id ${int}, ${q('key')} char(48) unique, status ${int} default 1,
      name varchar(191), created_time ${int}, accessed_time ${int}, expired_time ${int} default -1,
      remain_quota ${int} default 0, unlimited_quota ${bool} default ${f}, used_quota ${int} default 0,
      models ${text}, subnet varchar(191) default '')`,
    `create table channels (id ${id}, type ${int} default 0, ${q('key')} ${text}, status ${int} default 1,
      name varchar(191), weight ${int} default 0, created_time ${int}, test_time ${int},
      response_time ${int}, base_url varchar(191) default '', other ${text}, balance ${float},
      balance_updated_time ${int}, models ${text}, ${q('group')} varchar(32) default 'default',
      used_quota ${int} default 0, model_mapping varchar(1024) default '', priority ${int} default 0,
      config ${text}, system_prompt ${text})`,
    `create table redemptions (id ${id}, user_id ${int}, ${q('key')} char(32) unique, status ${int} default 1,
      name varchar(191), quota ${int} default 100, created_time ${int}, redeemed_time ${int})`,
    `create table options (${q('key')} varchar(191) primary key, value ${text})`,
    `create table logs (id ${id}, user_id ${int}, created_at ${int}, type ${int}, content ${text},
      username varchar(191) default '', token_name varchar(191) default '', model_name varchar(191) default '',
      quota ${int} default 0, prompt_tokens ${int} default 0, completion_tokens ${int} default 0,
      channel_id ${int}, request_id varchar(191) default '', elapsed_time ${int} default 0,
      is_stream ${bool} default ${f}, system_prompt_reset ${bool} default ${f})`,
  ];
}
