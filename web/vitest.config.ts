import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineProject } from 'vitest/config';

const domainSrc = fileURLToPath(new URL('../domain/src/index.ts', import.meta.url));
const domainSchemas = fileURLToPath(new URL('../domain/src/schemas/', import.meta.url));

export default defineProject({
  plugins: [react()],
  resolve: {
    // One schema module may be imported on its own (lazily) without the rest of the domain package.
    alias: [
      { find: /^@switchyard\/domain\/schemas\/(.*)$/, replacement: `${domainSchemas}$1.ts` },
      { find: /^@switchyard\/domain$/, replacement: domainSrc },
    ],
  },
  test: {
    name: 'web',
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
  },
});
