export interface SetScenarioOptions {
  /** Only requests for this model. */
  model?: string;
  /** Only the next N matching requests; afterwards the previous rules apply again. */
  times?: number;
}

interface Rule<S> {
  scenario: S;
  model: string | undefined;
  remaining: number | undefined;
}

/**
 * What a fake upstream answers next, set by the test. Newest rules first: one-shot rules before
 * standing ones, model rules before global ones; with no rule the fake answers normally.
 */
export class ScenarioRules<S> {
  private rules: Rule<S>[] = [];

  constructor(private readonly normal: S) {}

  add(scenario: S, options: SetScenarioOptions = {}): void {
    this.rules.push({ scenario, model: options.model, remaining: options.times });
  }

  clear(): void {
    this.rules = [];
  }

  /** The scenario for a request for `model`; a one-shot rule is used up by it. */
  pick(model: string | undefined): S {
    const candidates = [...this.rules].reverse();
    const order = [
      (r: Rule<S>) => r.remaining !== undefined && r.model !== undefined && r.model === model,
      (r: Rule<S>) => r.remaining !== undefined && r.model === undefined,
      (r: Rule<S>) => r.remaining === undefined && r.model !== undefined && r.model === model,
      (r: Rule<S>) => r.remaining === undefined && r.model === undefined,
    ];
    for (const match of order) {
      const rule = candidates.find(match);
      if (!rule) continue;
      if (rule.remaining !== undefined) {
        rule.remaining--;
        if (rule.remaining <= 0) this.rules = this.rules.filter((r) => r !== rule);
      }
      return rule.scenario;
    }
    return this.normal;
  }
}
