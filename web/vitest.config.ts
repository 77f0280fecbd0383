import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineProject } from 'vitest/config';

const domainSrc = fileURLToPath(new URL('../domain/src/index.ts', import.meta.url));

export default defineProject({
  plugins: [react()],
  resolve: { alias: { '@switchyard/domain': domainSrc } },
  test: {
    name: 'web',
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
  },
});
