import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const domainSrc = fileURLToPath(new URL('../domain/src/index.ts', import.meta.url));
const apiServer = 'http://127.0.0.1:3000';

export default defineConfig({
  // Relative asset URLs let one build run under any base path: the server injects <base href> and
  // window.__SWITCHYARD__.basePath into index.html.
  base: './',
  plugins: [react()],
  resolve: { alias: { '@switchyard/domain': domainSrc } },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: {
    proxy: {
      '/api': { target: apiServer, changeOrigin: false },
      '/v1': { target: apiServer, changeOrigin: false },
    },
  },
});
