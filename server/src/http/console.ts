import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { consolePolicy, snippetParts } from './content-policy.js';

/** Files a browser may render as a document (an SVG opened directly runs its scripts). */
const DOCUMENT_FILE = /\.(html?|svg|xml)$/i;
const DOCUMENT_ONLY_HEADERS = ['referrer-policy', 'x-frame-options'];

/** Where `vite build` puts the console, relative to this file in src/ or dist/. */
export function defaultWebDist(): string {
  return fileURLToPath(new URL('../../../web/dist', import.meta.url));
}

/** Hashed file names change with their content, so a browser may keep them for a year unasked. */
const HASHED_CACHE = 'public, max-age=31536000, immutable';

/** index.html as served: with its inline scripts' policy. */
interface ConsolePage {
  html: string;
  policy: string;
}

/**
 * Serves the built console: the build's brotli or gzip copy of a file when the browser takes it,
 * hashed assets cached for a year, every other path gets index.html (no-cache) with the base path
 * and the operator's AnalyticsCode injected, so the single-page router can take over. Every answer
 * carries the Content-Security-Policy that allows exactly those inline scripts.
 */
export async function registerConsole(
  app: FastifyInstance,
  webDist: string,
  basePath: string,
  analyticsCode: () => string = () => '',
): Promise<((reply: FastifyReply) => FastifyReply) | undefined> {
  const indexFile = path.join(webDist, 'index.html');
  if (!existsSync(indexFile)) {
    app.log.warn({ webDist }, 'console not built: run `npm run build` to serve it');
    return undefined;
  }
  const base = basePath === '/' ? '/' : `${basePath}/`;
  const baseScript = `window.__SWITCHYARD__=${JSON.stringify({ basePath })}`;
  const injected = `<base href="${base}"><script>${baseScript}</script>`;
  const html = readFileSync(indexFile, 'utf8').replace(/<head>/i, `<head>${injected}`);

  // The page is rebuilt only when the option changes (a save on any node reloads the options).
  let page: ConsolePage & { code: string } = {
    code: '',
    html,
    policy: consolePolicy([baseScript], snippetParts('')),
  };
  const currentPage = (): ConsolePage => {
    const code = analyticsCode();
    if (code !== page.code) {
      page = {
        code,
        // A function, so `$&` or `$'` in the snippet are not read as replacement patterns.
        html: code === '' ? html : html.replace(/<\/head>/i, () => `${code}</head>`),
        policy: consolePolicy([baseScript], snippetParts(code)),
      };
    }
    return page;
  };

  await app.register(fastifyStatic, {
    root: webDist,
    prefix: '/',
    index: false,
    wildcard: true,
    preCompressed: true,
    setHeaders: (res, file) => {
      const hashed = file.includes(`${path.sep}assets${path.sep}`);
      res.header('cache-control', hashed ? HASHED_CACHE : 'no-cache');
      // A hashed file never changes under its name, so there is nothing to revalidate.
      if (hashed) {
        res.removeHeader('etag');
        res.removeHeader('last-modified');
      }
      // The policy, framing and referrer headers govern documents. A script, style sheet, font or
      // bitmap is never one, and the first load fetches dozens of them (about 500 bytes each).
      if (DOCUMENT_FILE.test(file)) res.header('content-security-policy', currentPage().policy);
      else for (const name of DOCUMENT_ONLY_HEADERS) res.removeHeader(name);
    },
  });
  const serveIndex = (reply: FastifyReply) => {
    const { html, policy } = currentPage();
    return reply
      .status(200)
      .header('cache-control', 'no-cache')
      .header('content-security-policy', policy)
      .type('text/html; charset=utf-8')
      .send(html);
  };
  // The static plugin treats "/" as a directory (refused with 403); the console's home is the SPA.
  app.get('/', (_req, reply) => serveIndex(reply));
  return serveIndex;
}
