import {
  defaultOptionValues,
  dependentToggles,
  isOptionKey,
  type OptionDef,
  type OptionKey,
  type OptionValues,
  optionDefs,
  unmetRequirements,
} from '@switchyard/domain';
import type { ChangeBus } from '../cache/change-bus.js';
import { isSealed, type Sealer } from '../crypto/secret-box.js';
import type { OptionsQueries } from '../db/queries/options.js';

export class OptionValidationError extends Error {
  constructor(
    readonly problems: { key: string; message: string }[],
    readonly kind: 'invalid' | 'precondition' = 'invalid',
  ) {
    super(problems.map((p) => `${p.key}: ${p.message}`).join('; '));
  }
}

const TOPIC = 'options';

function defOf(key: OptionKey): OptionDef<unknown> {
  return optionDefs[key] as OptionDef<unknown>;
}

/**
 * The typed option snapshot every request reads from memory. Writes are validated as a whole,
 * stored in one transaction, then announced so other nodes reload.
 */
export class OptionStore {
  private values: OptionValues = defaultOptionValues();
  private loadedVersion = -1;
  private poller: NodeJS.Timeout | undefined;
  /** Secret options found stored in the clear (written before sealing): sealPlainSecrets seals them. */
  private plainSecrets = new Set<OptionKey>();
  private readonly changeListeners = new Set<() => void>();

  /**
   * With a `sealer`, secret options (SMTPToken, OAuth client secrets, ...) are stored sealed like
   * channel keys, and opened only in this process's memory.
   */
  constructor(
    private readonly queries: OptionsQueries,
    private readonly bus: ChangeBus,
    private readonly nowSeconds: () => number,
    private readonly onInvalidStored: (key: string, message: string) => void = () => {},
    private readonly sealer?: Sealer,
  ) {
    bus.subscribe(TOPIC, () => void this.reload().catch(() => {}));
  }

  /** Called after each new snapshot: a write on this node, or a reload after another node's write. */
  onChange(listener: () => void): void {
    this.changeListeners.add(listener);
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  get current(): Readonly<OptionValues> {
    return this.values;
  }

  get<K extends OptionKey>(key: K): OptionValues[K] {
    return this.values[key];
  }

  async reload(): Promise<void> {
    const next = defaultOptionValues() as Record<string, unknown>;
    const plain = new Set<OptionKey>();
    for (const row of await this.queries.all()) {
      if (!isOptionKey(row.key)) continue;
      try {
        let value = row.value;
        if (this.sealer && defOf(row.key).secret && value !== '') {
          if (isSealed(value)) value = this.openSecret(value);
          else plain.add(row.key);
        }
        next[row.key] = defOf(row.key).parse(value);
      } catch (err) {
        // A value written by an older version that no longer validates falls back to the default.
        this.onInvalidStored(row.key, (err as Error).message);
      }
    }
    this.values = next as OptionValues;
    this.plainSecrets = plain;
    this.loadedVersion = await this.queries.version();
    this.changed();
  }

  private openSecret(sealed: string): string {
    try {
      return this.sealer!.decrypt(sealed);
    } catch {
      throw new Error('cannot be opened with this SECRET_KEY');
    }
  }

  /**
   * Seals the secret options a database written before sealing still holds in the clear (start-up
   * step, after reload). Returns their keys.
   */
  async sealPlainSecrets(): Promise<OptionKey[]> {
    if (!this.sealer || this.plainSecrets.size === 0) return [];
    const keys = [...this.plainSecrets];
    const stored: Record<string, string> = {};
    for (const key of keys) stored[key] = this.sealer.encrypt(defOf(key).format(this.values[key]));
    await this.queries.save(stored, this.nowSeconds());
    this.plainSecrets.clear();
    this.loadedVersion = await this.queries.version();
    await this.bus.publish(TOPIC);
    return keys;
  }

  /** Without a cross-node bus, other nodes' changes are noticed by polling the newest change time. */
  startPolling(intervalMs: number): void {
    if (this.bus.crossNode || this.poller) return;
    this.poller = setInterval(async () => {
      try {
        if ((await this.queries.version()) !== this.loadedVersion) await this.reload();
      } catch {
        // The next tick tries again; a failed poll must not crash the process.
      }
    }, intervalMs);
    this.poller.unref();
  }

  stop(): void {
    if (this.poller) clearInterval(this.poller);
  }

  /** Validates every value, checks the enable guards against the result, then saves all or nothing. */
  async update(raw: Record<string, string>): Promise<OptionKey[]> {
    const problems: { key: string; message: string }[] = [];
    const parsed: Partial<Record<OptionKey, unknown>> = {};
    for (const [key, value] of Object.entries(raw)) {
      if (!isOptionKey(key)) {
        problems.push({ key, message: 'is not a known option' });
        continue;
      }
      if (typeof value !== 'string') {
        problems.push({ key, message: 'must be a string' });
        continue;
      }
      try {
        parsed[key] = defOf(key).parse(value);
      } catch (err) {
        problems.push({ key, message: (err as Error).message });
      }
    }
    if (problems.length > 0) throw new OptionValidationError(problems);

    const merged = { ...this.values, ...parsed } as Record<string, unknown>;
    // A toggle being turned on, or a setting a live toggle depends on being cleared, must leave
    // every enabled sign-in method fully configured.
    const touched = new Set<OptionKey>(Object.keys(parsed) as OptionKey[]);
    for (const key of Object.keys(parsed) as OptionKey[])
      for (const d of dependentToggles(key)) touched.add(d);
    const unmet: { key: string; message: string }[] = [];
    for (const key of touched) {
      const missing = unmetRequirements(key, merged as Partial<Record<OptionKey, unknown>>);
      if (missing.length > 0) unmet.push({ key, message: `needs ${missing.join(', ')} to be set first` });
    }
    if (unmet.length > 0) throw new OptionValidationError(unmet, 'precondition');

    const stored: Record<string, string> = {};
    for (const [key, value] of Object.entries(parsed)) {
      const def = defOf(key as OptionKey);
      const text = def.format(value);
      // An empty secret stays empty: "not set" needs no sealing.
      stored[key] = this.sealer && def.secret && text !== '' ? this.sealer.encrypt(text) : text;
    }
    await this.queries.save(stored, this.nowSeconds());
    this.values = merged as OptionValues;
    for (const key of Object.keys(parsed)) this.plainSecrets.delete(key as OptionKey);
    this.loadedVersion = await this.queries.version();
    this.changed();
    await this.bus.publish(TOPIC);
    return Object.keys(parsed) as OptionKey[];
  }

  /** The GET /api/option/ view: every key as a string; secrets only say whether they are set. */
  list(): { key: OptionKey; value: string; secret: boolean; set: boolean; section: string }[] {
    return (Object.keys(optionDefs) as OptionKey[]).map((key) => {
      const d = defOf(key);
      const value = d.format(this.values[key]);
      return d.secret
        ? { key, value: '', secret: true, set: value !== '', section: d.section }
        : { key, value, secret: false, set: value !== '', section: d.section };
    });
  }
}
