import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';

// Issue #25 item 8 and issue #34 item 6: the console's headers, and the operator's analytics snippet
// served in the page with a policy that allows exactly its scripts.

const ANALYTICS = [
  '<script async src="https://stats.example.com/script.js" data-website-id="abc"></script>',
  "<script>window.dataLayer=window.dataLayer||[];dataLayer.push(['config','G-TEST']);</script>",
  '<script>fetch("https://beacon.example.net/collect"); var price = "$&" + "$\'";</script>',
].join('\n');

const inlineScripts = (html: string) =>
  [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const directive = (policy: string, name: string) =>
  policy
    .split(';')
    .map((d) => d.trim().split(/\s+/))
    .find((d) => d[0] === name)
    ?.slice(1) ?? [];

describe('security headers and the console policy', () => {
  let t: TestApp;
  let root: string;
  beforeAll(async () => {
    const dist = mkdtempSync(path.join(tmpdir(), 'sy-web-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(
      path.join(dist, 'index.html'),
      '<!doctype html><html><head><title>x</title><script type="module" src="/assets/app.js"></script></head><body></body></html>',
    );
    writeFileSync(path.join(dist, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(path.join(dist, 'assets', 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    t = await createTestApp({ env: { WEB_DIST: dist, TRUSTED_PROXIES: '127.0.0.1' } });
    root = await t.signIn('root', ROOT_PASSWORD);
  });
  afterAll(async () => t?.close());

  it('sends nosniff, a referrer policy and frame-ancestors; a CSP whose scripts are hashed', async () => {
    for (const url of ['/', '/panel/log', '/assets/icon.svg']) {
      const res = await t.call({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('same-origin');
      const policy = String(res.headers['content-security-policy']);
      expect(directive(policy, 'frame-ancestors')).toEqual(["'self'"]);
      expect(directive(policy, 'object-src')).toEqual(["'none'"]);
      expect(directive(policy, 'script-src')).not.toContain("'unsafe-inline'");
    }
    const page = await t.call({ method: 'GET', url: '/' });
    const scripts = directive(String(page.headers['content-security-policy']), 'script-src');
    const inline = inlineScripts(page.body);
    expect(inline).toHaveLength(1); // the base path
    expect(scripts.filter((s) => s.startsWith("'sha256-"))).toEqual(inline.map(sha));
    const api = await t.call({ method: 'GET', url: '/api/status' });
    expect(api.headers['x-content-type-options']).toBe('nosniff');
  });

  it('sends a script only the headers a script needs', async () => {
    const res = await t.call({ method: 'GET', url: '/assets/app.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toContain('immutable');
    for (const name of ['content-security-policy', 'x-frame-options', 'referrer-policy'])
      expect(res.headers[name], name).toBeUndefined();
  });

  it('sends HSTS only when the request came over https through a trusted proxy', async () => {
    const plain = await t.call({ method: 'GET', url: '/' });
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    const proxied = await t.call({ method: 'GET', url: '/', headers: { 'x-forwarded-proto': 'https' } });
    expect(proxied.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    // From an address that is not a trusted proxy, the header is the client's word: no HSTS.
    const forged = await t.call({
      method: 'GET',
      url: '/',
      remoteAddress: '203.0.113.9',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(forged.headers['strict-transport-security']).toBeUndefined();
  });

  it('serves AnalyticsCode in the page and in the status, its scripts allowed and no others', async () => {
    const saved = await t.call({
      method: 'PUT',
      url: '/api/option/',
      headers: { cookie: root },
      payload: { key: 'AnalyticsCode', value: ANALYTICS },
    });
    expect(saved.statusCode).toBe(200);
    const page = await t.call({ method: 'GET', url: '/panel/dashboard' });
    expect(page.body).toContain(ANALYTICS);
    const policy = String(page.headers['content-security-policy']);
    const scripts = directive(policy, 'script-src');
    const inline = inlineScripts(page.body);
    expect(inline).toHaveLength(3);
    expect(scripts.filter((s) => s.startsWith("'sha256-")).sort()).toEqual(inline.map(sha).sort());
    expect(scripts).toContain('https://stats.example.com');
    expect(directive(policy, 'connect-src')).toEqual(
      expect.arrayContaining(["'self'", 'https://stats.example.com', 'https://beacon.example.net']),
    );
    const status = (await t.call({ method: 'GET', url: '/api/status' })).json().data;
    expect(status.analytics_code).toBe(ANALYTICS);

    // Cleared: the page and its policy go back to the console's own script.
    await t.call({
      method: 'PUT',
      url: '/api/option/',
      headers: { cookie: root },
      payload: { key: 'AnalyticsCode', value: '' },
    });
    const after = await t.call({ method: 'GET', url: '/' });
    expect(after.body).not.toContain('stats.example.com');
    expect(directive(String(after.headers['content-security-policy']), 'script-src')).not.toContain(
      'https://stats.example.com',
    );
  });
});
