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

  it('keys Redis under sy: unless a deployment names its own prefix', () => {
    expect(loadConfig({}).redisKeyPrefix).toBe('sy:');
    expect(loadConfig({ REDIS_KEY_PREFIX: 'shop-eu:' }).redisKeyPrefix).toBe('shop-eu:');
    expect(() => loadConfig({ REDIS_KEY_PREFIX: 'has space' })).toThrow(/REDIS_KEY_PREFIX/);
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

  it('reads the database pool, metrics and tracing settings, with defaults', () => {
    const d = loadConfig({});
    expect(d.databasePool).toEqual({
      max: 10,
      connectTimeoutMs: 10_000,
      idleTimeoutMs: 30_000,
      statementTimeoutMs: 0,
    });
    expect(d.metricsToken).toBeUndefined();
    expect(d.otlpEndpoint).toBeUndefined();
    const c = loadConfig({
      DATABASE_POOL_MAX: '4',
      DATABASE_CONNECT_TIMEOUT_MS: '2500',
      DATABASE_IDLE_TIMEOUT_MS: '5000',
      DATABASE_STATEMENT_TIMEOUT_MS: '60000',
      METRICS_TOKEN: 'scrape-token-0123456789',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
    });
    expect(c.databasePool).toEqual({
      max: 4,
      connectTimeoutMs: 2500,
      idleTimeoutMs: 5000,
      statementTimeoutMs: 60_000,
    });
    expect(c.metricsToken).toBe('scrape-token-0123456789');
    expect(c.otlpEndpoint).toBe('http://collector:4318');
    let error: unknown;
    try {
      loadConfig({ DATABASE_POOL_MAX: '0', METRICS_TOKEN: 'short-token' });
    } catch (err) {
      error = err;
    }
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('DATABASE_POOL_MAX');
    expect(problems).toContain('METRICS_TOKEN');
    expect(problems).not.toContain('short-token');
  });
});
