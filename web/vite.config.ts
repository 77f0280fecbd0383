import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

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

export default defineConfig({
  // Relative asset URLs let one build run under any base path: the server injects <base href> and
  // window.__SWITCHYARD__.basePath into index.html.
  base: './',
  plugins: [react(), precompress()],
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
