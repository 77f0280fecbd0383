import { defineProject } from 'vitest/config';

// The pure parts of the benchmark (statistics, report, accounting, parsers). The load runs
// themselves are never part of the test suite: speed is measured by `npm run bench`, not in tests.
export default defineProject({
  test: {
    name: 'bench',
    environment: 'node',
    include: ['src/**/*.test.ts'],
  },
});
