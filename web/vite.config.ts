import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin, type Rolldown } from 'vite';
import { type FirstScreenPlan, PLAN_ELEMENT_ID } from './src/boot/first-screen';
import { LANGUAGES } from './src/i18n/languages';

const domainSrc = fileURLToPath(new URL('../domain/src/index.ts', import.meta.url));
const domainSchemas = fileURLToPath(new URL('../domain/src/schemas/', import.meta.url));
const apiServer = 'http://127.0.0.1:3000';

/** Files the server sends precompressed: text that shrinks. */
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|map)$/;

/**
 * Writes a brotli (best quality) and a gzip copy beside every compressible file of the build, so the
 * server sends them as they are instead of compressing the same bytes on every request.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'switchyard-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((name) => {
          const file = path.join(dir, name);
          return statSync(file).isDirectory() ? walk(file) : [file];
        });
      for (const file of walk(outDir)) {
        if (!COMPRESSIBLE.test(file)) continue;
        const bytes = readFileSync(file);
        if (bytes.length < 512) continue;
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(bytes, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
              [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
            },
          }),
        );
        writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

const srcFile = (file: string) => fileURLToPath(new URL(`./src/${file}`, import.meta.url));

/**
 * The screens a cold visit usually opens on, by console path: their page chunks are preloaded from
 * the start (src/boot). Any other screen loads as before, once the entry has run.
 */
const FIRST_SCREENS: Record<string, string> = {
  '/': srcFile('features/home/home-page.tsx'),
  '/login': srcFile('features/auth/login-page.tsx'),
  '/panel/dashboard': srcFile('features/dashboard/dashboard-page.tsx'),
};
const BOOT_ENTRY = 'boot';
const BOOT_MODULE = 'boot/main.ts';

/** A chunk's file and every chunk it imports statically, transitively. */
function chunkGraph(bundle: Rolldown.OutputBundle, fileName: string, into = new Set<string>()): Set<string> {
  const chunk = bundle[fileName];
  if (into.has(fileName) || chunk?.type !== 'chunk') return into;
  into.add(fileName);
  for (const imported of chunk.imports) chunkGraph(bundle, imported, into);
  return into;
}

/**
 * Writes the first-screen plan (the page chunks of FIRST_SCREENS and each language's chunk, less
 * what index.html already preloads) into index.html with the boot script that acts on it.
 */
function firstScreenPreload(): Plugin {
  return {
    name: 'switchyard-first-screen',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, { bundle, chunk: entry }) {
        if (!bundle || !entry) throw new Error('the first-screen plan needs the built bundle');
        const chunks = Object.values(bundle).filter((c): c is Rolldown.OutputChunk => c.type === 'chunk');
        const loaded = chunkGraph(bundle, entry.fileName);
        const filesOf = (moduleId: string, what: string): string[] => {
          const chunk = chunks.find((c) => c.facadeModuleId === moduleId);
          if (!chunk) throw new Error(`no chunk for ${what} (${moduleId})`);
          return [...chunkGraph(bundle, chunk.fileName)].filter((f) => !loaded.has(f)).map((f) => `./${f}`);
        };
        const plan: FirstScreenPlan = {
          screens: Object.fromEntries(
            Object.entries(FIRST_SCREENS).map(([screen, page]) => [
              screen,
              filesOf(page, `screen ${screen}`),
            ]),
          ),
          locales: Object.fromEntries(
            LANGUAGES.map(({ code }) => [
              code,
              filesOf(srcFile(`i18n/locales/${code.toLowerCase().replace('_', '-')}.ts`), `language ${code}`),
            ]),
          ),
        };
        const boot = chunks.find((c) => c.isEntry && c.name === BOOT_ENTRY);
        if (!boot) throw new Error('the boot entry is missing from the bundle');
        return [
          // A data block, not a script: the page's Content-Security-Policy has nothing to allow.
          {
            tag: 'script',
            attrs: { type: 'application/json', id: PLAN_ELEMENT_ID },
            children: JSON.stringify(plan),
            injectTo: 'body',
          },
          {
            tag: 'script',
            attrs: { type: 'module', crossorigin: true, src: `./${boot.fileName}` },
            // The first request on the wire; deferred like every module script, so the plan is parsed.
            injectTo: 'head-prepend',
          },
        ];
      },
    },
  };
}

/**
 * One chunk for everything the entry imports statically (React, MUI's core, the router, i18next, the
 * layouts), instead of a dozen chunks that each cost a request, its headers and, over HTTP/1.1's six
 * connections, a queue. The domain package and zod stay out: the entry imports the domain's index,
 * and grouping by module would bring every schema any page uses into the first load.
 */
function shellChunk(): {
  plugin: Plugin;
  test: (id: string) => boolean;
  bootShared: (id: string) => boolean;
} {
  const graph = new Set<string>();
  // What the boot module imports (its language choice) stays out, in a small chunk of its own, so the
  // boot script never waits for the shell it is there to get ahead of.
  const bootGraph = new Set<string>();
  const plugin: Plugin = {
    name: 'switchyard-shell-chunk',
    apply: 'build',
    buildEnd() {
      const walk = (id: string, into: Set<string>) => {
        if (into.has(id)) return;
        into.add(id);
        for (const next of this.getModuleInfo(id)?.importedIds ?? []) walk(next, into);
      };
      for (const id of this.getModuleIds()) {
        if (!this.getModuleInfo(id)?.isEntry) continue;
        walk(id, id === srcFile(BOOT_MODULE) ? bootGraph : graph);
      }
    },
  };
  const test = (id: string) =>
    graph.has(id) && !bootGraph.has(id) && !/\/domain\/src\/|\/node_modules\/zod\//.test(id);
  // The few modules both use (the language choice, storage) form a small chunk of their own.
  const bootShared = (id: string) => bootGraph.has(id) && graph.has(id);
  return { plugin, test, bootShared };
}

const shell = shellChunk();

export default defineConfig({
  // Relative asset URLs let one build run under any base path: the server injects <base href> and
  // window.__SWITCHYARD__.basePath into index.html.
  base: './',
  plugins: [react(), shell.plugin, firstScreenPreload(), precompress()],
  resolve: {
    // One schema module may be imported on its own (lazily) without the rest of the domain package.
    alias: [
      { find: /^@switchyard\/domain\/schemas\/(.*)$/, replacement: `${domainSchemas}$1.ts` },
      { find: /^@switchyard\/domain$/, replacement: domainSrc },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      input: { index: srcFile('../index.html'), [BOOT_ENTRY]: srcFile(BOOT_MODULE) },
      output: {
        codeSplitting: {
          groups: [
            { name: 'boot-shared', test: shell.bootShared },
            { name: 'shell', test: shell.test },
          ],
        },
      },
    },
    // Brand icons stay files of their own: inlined, every one would travel with the page that lists any.
    assetsInlineLimit: (file) => (file.includes('icons-static-svg') ? false : undefined),
  },
  server: {
    proxy: {
      '/api': { target: apiServer, changeOrigin: false },
      '/v1': { target: apiServer, changeOrigin: false },
    },
  },
});
