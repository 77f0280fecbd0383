import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('gives working defaults for an empty environment', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.dataDir).toBe(path.resolve('./data'));
    expect(c.databaseUrl).toBe(`sqlite:${path.resolve('./data/switchyard.db')}`);
    expect(c.basePath).toBe('/');
    expect(c.apiBodyLimit).toBe(1024 * 1024);
    expect(c.language).toBe('zh_CN');
  });

  it('parses sizes, lists and paths', () => {
    const c = loadConfig({
      API_BODY_LIMIT: '512kb',
      RELAY_BODY_LIMIT: '8mb',
      TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1',
      BASE_PATH: '/console/',
      DATABASE_URL: 'postgres://u@h/db',
    });
    expect(c.apiBodyLimit).toBe(512 * 1024);
    expect(c.relayBodyLimit).toBe(8 * 1024 * 1024);
    expect(c.trustedProxies).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(c.basePath).toBe('/console');
    expect(c.databaseUrl).toBe('postgres://u@h/db');
  });

  it('names every bad variable at once and never echoes secrets', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'oracle://x',
        LOG_LEVEL: 'loud',
        SECRET_KEY: 'short-secret',
        API_BODY_LIMIT: 'big',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'SECRET_KEY', 'API_BODY_LIMIT']) {
      expect(problems).toContain(name);
    }
    expect(problems).not.toContain('short-secret');
    expect(problems).toContain('12 characters');
  });
});
