import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { optionDefs } from '@switchyard/domain';
import { describe, expect, it } from 'vitest';

// Every setting an operator can store must change something: each option key and each stored
// channel, token, user and group column is read somewhere in the server outside the plumbing
// that only stores and echoes it (the API handlers, the database layer, the option store).

const SERVER_SRC = fileURLToPath(new URL('.', import.meta.url));

// The option editor, the resource editors and their presenters store and echo every field; a
// read there proves nothing. Other API handlers (sign-in, status, top-up) are where some settings act.
const PLUMBING_API = new Set([
  'api/settings/options.ts',
  'api/relay-resources/channels.ts',
  'api/relay-resources/tokens.ts',
  'api/users/users.ts',
  'api/users/user-groups.ts',
  'api/validation.ts',
  'api/relay-resources/channel-tools.ts',
]);

/** Files that only carry a setting between the API and the database. */
function isPlumbing(rel: string): boolean {
  return (
    PLUMBING_API.has(rel) ||
    rel.endsWith('-presenter.ts') ||
    rel.startsWith('db/') ||
    rel.startsWith('options/') ||
    rel.startsWith('test/') ||
    rel.includes('fixtures') ||
    rel.endsWith('.test.ts')
  );
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (entry.name.endsWith('.ts') && !isPlumbing(relative(SERVER_SRC, path))) out.push(path);
  }
  return out;
}

const source = sourceFiles(SERVER_SRC)
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');

/**
 * Whether `name` is read. A column copied into a renamed field (`preCost: row.pre_cost`) counts
 * only when that field is read in turn: copying a value into an object nobody reads is no use.
 */
function readSomewhere(name: string, followAliases = true): boolean {
  if (!followAliases) return new RegExp(`\\b${name}\\b`).test(source);
  const uses = [...source.matchAll(new RegExp(`(?:(\\w+):\\s*)?\\b\\w+\\.${name}\\b|\\b${name}\\b`, 'g'))];
  return uses.some((m) => {
    const alias = m[1];
    if (!alias || alias === name) return true;
    return new RegExp(`\\.${alias}\\b|(const|let)\\s*\\{[^}]*\\b${alias}\\b[^}]*\\}\\s*=`).test(source);
  });
}

/** Column names of one table's row interface in db/tables.ts. */
function columnsOf(table: string): string[] {
  const text = readFileSync(join(SERVER_SRC, 'db', 'tables.ts'), 'utf8');
  const body = new RegExp(`export interface ${table} \\{([^}]*)\\}`).exec(text)?.[1];
  if (!body) throw new Error(`no interface ${table} in db/tables.ts`);
  return [...body.matchAll(/^\s+([a-z_]+)\??:/gm)].map((m) => m[1]!);
}

/** Columns read under a computed name; the test checks that the computing code is still there. */
const READ_INDIRECTLY: Record<string, { file: string; pattern: RegExp }> = {
  github_id: { file: 'oauth/account-link.ts', pattern: /`\$\{p\}_id`/ },
  lark_id: { file: 'oauth/account-link.ts', pattern: /`\$\{p\}_id`/ },
  oidc_id: { file: 'oauth/account-link.ts', pattern: /`\$\{p\}_id`/ },
  wechat_id: { file: 'oauth/account-link.ts', pattern: /`\$\{p\}_id`/ },
};

/** Bookkeeping the server writes and shows; no operator sets it, so nothing else need read it. */
const SERVER_WRITTEN: Record<string, string> = {
  deleted_at: 'soft deletion: the database queries leave deleted rows out',
  balance_updated_time: 'when the balance report last ran, shown in the channel list',
};

const allowed = (name: string) => name in READ_INDIRECTLY || name in SERVER_WRITTEN;

describe('every stored setting is read by the server', () => {
  it('every option key', () => {
    const unread = Object.keys(optionDefs).filter((k) => !allowed(k) && !readSomewhere(k, false));
    expect(unread).toEqual([]);
  });

  for (const table of ['ChannelsTable', 'TokensTable', 'UsersTable', 'UserGroupsTable']) {
    it(`every column of ${table}`, () => {
      const unread = columnsOf(table).filter((c) => !allowed(c) && !readSomewhere(c));
      expect(unread).toEqual([]);
    });
  }

  it('columns read under a computed name are still read that way', () => {
    for (const [column, { file, pattern }] of Object.entries(READ_INDIRECTLY)) {
      const text = readFileSync(join(SERVER_SRC, file), 'utf8');
      expect(pattern.test(text), `${column} through ${file}`).toBe(true);
    }
  });

  it('the allow-lists name only columns that exist', () => {
    const known = new Set<string>();
    for (const t of ['ChannelsTable', 'TokensTable', 'UsersTable', 'UserGroupsTable'])
      for (const c of columnsOf(t)) known.add(c);
    const stale = [...Object.keys(READ_INDIRECTLY), ...Object.keys(SERVER_WRITTEN)].filter(
      (k) => !known.has(k),
    );
    expect(stale).toEqual([]);
  });
});
