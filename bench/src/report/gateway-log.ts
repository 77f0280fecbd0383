// What the gateway itself complained about during a run: its log lines (pino JSON) at warn level
// or above, counted by message. A gateway that drops or retries work under load says so here.

export interface LogComplaints {
  warnings: number;
  errors: number;
  /** Distinct messages with their counts, most frequent first (at most 10). */
  messages: { level: 'warn' | 'error'; msg: string; count: number }[];
}

const WARN = 40;
const ERROR = 50;

export function logComplaints(text: string): LogComplaints {
  const counts = new Map<string, { level: 'warn' | 'error'; msg: string; count: number }>();
  let warnings = 0;
  let errors = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: { level?: unknown; msg?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (typeof entry.level !== 'number' || entry.level < WARN) continue;
    const level = entry.level >= ERROR ? 'error' : 'warn';
    if (level === 'error') errors++;
    else warnings++;
    const msg = String(entry.msg ?? '').slice(0, 200);
    const key = `${level}\u0000${msg}`;
    const seen = counts.get(key) ?? { level, msg, count: 0 };
    seen.count++;
    counts.set(key, seen);
  }
  const messages = [...counts.values()].sort((a, b) => b.count - a.count).slice(0, 10);
  return { warnings, errors, messages };
}
