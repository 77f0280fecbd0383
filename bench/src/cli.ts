import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stopAll } from './processes/managed-process.js';
import { renderReport } from './report/report-table.js';
import { runBench } from './run-bench.js';
import { parseRunOptions, UsageError } from './run-options.js';

// `npm run bench [-- --quick]`: runs the benchmark, prints the report and writes the results file.

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

async function main(): Promise<void> {
  let options: ReturnType<typeof parseRunOptions>;
  try {
    options = parseRunOptions(process.argv.slice(2));
  } catch (err) {
    const help = err instanceof UsageError && err.help;
    (help ? process.stdout : process.stderr).write(`${(err as Error).message}\n`);
    process.exit(help ? 0 : err instanceof UsageError ? 2 : 1);
  }
  const stop = () => {
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  const started = Date.now();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const results = await runBench(options, { repoRoot, env: process.env, say });
  const out = path.resolve(options.out ?? path.join(repoRoot, 'bench', 'results', 'latest.json'));
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\n${renderReport(results)}\n`);
  say(
    `results written to ${path.relative(process.cwd(), out) || out}; took ${Math.round((Date.now() - started) / 1000)} s`,
  );
}

main().catch(async (err: unknown) => {
  process.stderr.write(
    `benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  await stopAll();
  process.exit(1);
});
