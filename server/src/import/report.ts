// What an import did or would do, per step: the same report for a dry run and a real one.

export interface StepReport {
  name: string;
  /** Rows read from the old system. */
  read: number;
  /** Rows written (a dry run: rows that would be written). */
  imported: number;
  /** Rows already in the target (an earlier run, or taken by the gateway itself): left as they are. */
  present: number;
  /** Rows that cannot be mapped, each with its reason. */
  skipped: { id: string; reason: string }[];
  /** Imported rows with something the operator should check. */
  notes: { id: string; note: string }[];
}

export class ImportReport {
  readonly steps: StepReport[] = [];

  constructor(
    readonly dryRun: boolean,
    readonly from: string,
  ) {}

  step(name: string): StepReport {
    const s: StepReport = { name, read: 0, imported: 0, present: 0, skipped: [], notes: [] };
    this.steps.push(s);
    return s;
  }

  get(name: string): StepReport | undefined {
    return this.steps.find((s) => s.name === name);
  }

  format(): string {
    const verb = this.dryRun ? 'would import' : 'imported';
    const lines = [`Import from ${this.from}${this.dryRun ? ' (dry run: nothing written)' : ''}`];
    const width = Math.max(...this.steps.map((s) => s.name.length), 8);
    for (const s of this.steps) {
      lines.push(
        `  ${s.name.padEnd(width)}  read ${s.read}, ${verb} ${s.imported}, already present ${s.present}, cannot map ${s.skipped.length}`,
      );
    }
    for (const s of this.steps) {
      for (const k of s.skipped) lines.push(`  skipped ${s.name} ${k.id}: ${k.reason}`);
      for (const n of s.notes) lines.push(`  note ${s.name} ${n.id}: ${n.note}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
