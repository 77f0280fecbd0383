import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/test-app.js';

describe('serving the built console', () => {
  let t: TestApp;
  beforeAll(async () => {
    const dist = mkdtempSync(path.join(tmpdir(), 'sy-web-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(
      path.join(dist, 'index.html'),
      '<!doctype html><html><head><title>x</title></head><body></body></html>',
    );
    writeFileSync(path.join(dist, 'assets', 'app-1234.js'), 'console.log(1)');
    // The build writes a compressed copy beside each file; this one says which was sent.
    writeFileSync(path.join(dist, 'assets', 'app-1234.js.gz'), gzipSync('console.log("gz")'));
    t = await createTestApp({ env: { WEB_DIST: dist, BASE_PATH: '/gw' } });
  });
  afterAll(async () => t?.close());

  it('serves index.html with the base path for / and for every client-side route', async () => {
    for (const url of ['/', '/panel/dashboard', '/user/reset?email=a&token=b']) {
      const res = await t.call({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<base href="/gw/">');
      expect(res.body).toContain('"basePath":"/gw"');
    }
  });

  it('serves hashed assets with a long cache lifetime', async () => {
    const res = await t.call({ method: 'GET', url: '/assets/app-1234.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toBe('console.log(1)');
  });

  it("sends the build's precompressed copy to a browser that takes it", async () => {
    const res = await t.call({
      method: 'GET',
      url: '/assets/app-1234.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-type']).toContain('javascript');
    expect(res.rawPayload).toEqual(gzipSync('console.log("gz")'));
  });
});
