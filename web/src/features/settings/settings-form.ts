import { isOptionKey, type OptionKey, optionDefs, parseOption, unmetRequirements } from '@switchyard/domain';
import { isJsonText } from '../admin/field-errors';

// What a settings card sends: only the keys that changed, each checked by the option registry first,
// so that a bad value never leaves the browser (the server checks again and writes all or nothing).

export interface OptionRow {
  key: string;
  value: string;
  secret: boolean;
  set: boolean;
  section: string;
}

export type CardProblem =
  | { key: OptionKey; kind: 'json' }
  | { key: OptionKey; kind: 'value'; reason: string }
  | { key: OptionKey; kind: 'requires'; missing: string[] };

/** The changed keys of a card; a secret typed empty means "keep", not "clear". */
export function changedValues(
  keys: readonly OptionKey[],
  draft: Record<string, string>,
  stored: readonly OptionRow[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) {
    const row = stored.find((o) => o.key === key);
    const value = draft[key];
    if (value === undefined || !row) continue;
    if (row.secret ? value !== '' : value !== row.value) out[key] = value;
  }
  return out;
}

export function checkCard(
  changes: Record<string, string>,
  draft: Record<string, string>,
  stored: readonly OptionRow[],
): CardProblem[] {
  const problems: CardProblem[] = [];
  for (const [key, raw] of Object.entries(changes)) {
    if (!isOptionKey(key)) continue;
    if (optionDefs[key].kind === 'json' && !isJsonText(raw)) {
      problems.push({ key, kind: 'json' });
      continue;
    }
    const parsed = parseOption(key, raw);
    if (!parsed.ok) problems.push({ key, kind: 'value', reason: parsed.message.slice(key.length + 1) });
  }
  // Toggles that need other settings: judged on the values the card would leave behind.
  const after: Partial<Record<OptionKey, unknown>> = {};
  for (const row of stored) {
    if (!isOptionKey(row.key)) continue;
    const raw = draft[row.key] ?? row.value;
    after[row.key] = row.secret
      ? raw !== '' || row.set
        ? 'set'
        : ''
      : optionDefs[row.key].kind === 'bool'
        ? raw === 'true'
        : raw;
  }
  for (const key of Object.keys(changes)) {
    if (!isOptionKey(key)) continue;
    const missing = unmetRequirements(key, after);
    if (missing.length > 0) problems.push({ key, kind: 'requires', missing });
  }
  return problems;
}
