import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const domainSrc = fileURLToPath(new URL('./domain/src/index.ts', import.meta.url));

export default defineConfig({
  resolve: { alias: { '@switchyard/domain': domainSrc } },
  test: {
    // CI collects the counts from a JSON report beside the usual output.
    reporters: process.env.VITEST_JSON
      ? ['default', ['json', { outputFile: process.env.VITEST_JSON }]]
      : ['default'],
    projects: [
      { extends: true, test: { name: 'domain', include: ['domain/src/**/*.test.ts'], environment: 'node' } },
      {
        extends: true,
        test: {
          name: 'server',
          include: ['server/src/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      './web',
      './bench',
    ],
  },
});
