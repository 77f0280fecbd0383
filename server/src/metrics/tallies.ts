import type { Metric, Registry } from 'prom-client';

// prom-client's counters and histograms hash their label set on every increment (a string built per
// call), too dear at the relay's call rate. These keep a plain number per label set, found once by
// the caller, and hand prom-client the totals at scrape time through the metric object shape its
// registry formats (name, help, type, get()).

type Labels = Record<string, string>;

interface Exported {
  value: number;
  labels: Labels;
  metricName?: string;
}

export interface CounterCell {
  value: number;
}

export class TallyCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private readonly cells: { labels: Labels; cell: CounterCell }[] = [];

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** A cell for one label set; the caller keeps it and adds to `value`. */
  cell(labels: Labels): CounterCell {
    const cell = { value: 0 };
    this.cells.push({ labels, cell });
    return cell;
  }

  async get() {
    const values: Exported[] = this.cells.map((c) => ({ value: c.cell.value, labels: c.labels }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const c of this.cells) c.cell.value = 0;
  }
}

export class HistogramCell {
  /** Observations per bucket (not cumulative); the last is above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && value > (b[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count++;
  }
}

export class TallyHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly cells: { labels: Labels; cell: HistogramCell }[] = [];

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  cell(labels: Labels): HistogramCell {
    const cell = new HistogramCell(this.bounds);
    this.cells.push({ labels, cell });
    return cell;
  }

  async get() {
    const values: Exported[] = [];
    for (const { labels, cell } of this.cells) {
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += cell.counts[i] as number;
        const le = i < this.bounds.length ? String(this.bounds[i]) : '+Inf';
        values.push({ value: cumulative, labels: { le, ...labels }, metricName: `${this.name}_bucket` });
      }
      values.push({ value: cell.sum, labels, metricName: `${this.name}_sum` });
      values.push({ value: cell.count, labels, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const { cell } of this.cells) {
      cell.counts.fill(0);
      cell.sum = 0;
      cell.count = 0;
    }
  }
}
