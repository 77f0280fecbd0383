// EnableSafe + SafeKeyWords: prompts holding a listed keyword are refused before anything is
// reserved or sent. One Aho-Corasick automaton over the list scans each text once, whatever the
// list's length. Hand-written: modern-ahocorasick segments text into graphemes, far too slow for a
// check on every call.

type Json = Record<string, unknown>;

/** A keyword automaton; matching ignores case (both sides lower-cased). */
export class KeywordAutomaton {
  /** Per state: next state by UTF-16 code unit. */
  private readonly next: Map<number, number>[] = [new Map()];
  private readonly fail: number[] = [0];
  /** Per state: the keyword that ends here (or at a state its failure chain reaches), if any. */
  private readonly hit: (string | undefined)[] = [undefined];
  readonly size: number;

  constructor(keywords: Iterable<string>) {
    let size = 0;
    for (const raw of keywords) {
      const word = raw.trim().toLowerCase();
      if (word === '') continue;
      size++;
      let state = 0;
      for (let i = 0; i < word.length; i++) {
        const c = word.charCodeAt(i);
        let to = this.next[state]!.get(c);
        if (to === undefined) {
          to = this.next.length;
          this.next.push(new Map());
          this.fail.push(0);
          this.hit.push(undefined);
          this.next[state]!.set(c, to);
        }
        state = to;
      }
      this.hit[state] ??= raw.trim();
    }
    this.size = size;
    // Breadth first: a state's failure link is set before its children need it.
    const queue: number[] = [...this.next[0]!.values()];
    for (let q = 0; q < queue.length; q++) {
      const state = queue[q]!;
      for (const [c, child] of this.next[state]!) {
        let f = this.fail[state]!;
        while (f !== 0 && !this.next[f]!.has(c)) f = this.fail[f]!;
        const to = this.next[f]!.get(c);
        this.fail[child] = to !== undefined && to !== child ? to : 0;
        this.hit[child] ??= this.hit[this.fail[child]!];
        queue.push(child);
      }
    }
  }

  /** The first listed keyword found in `text`, or undefined. */
  find(text: string): string | undefined {
    if (this.size === 0) return undefined;
    const lower = text.toLowerCase();
    let state = 0;
    for (let i = 0; i < lower.length; i++) {
      const c = lower.charCodeAt(i);
      let to = this.next[state]!.get(c);
      while (to === undefined && state !== 0) {
        state = this.fail[state]!;
        to = this.next[state]!.get(c);
      }
      state = to ?? 0;
      const word = this.hit[state];
      if (word !== undefined) return word;
    }
    return undefined;
  }
}

/** Keywords one per line (commas also separate, as lists pasted from elsewhere often use them). */
export function parseKeywordList(text: string): string[] {
  return text.split(/[\n,]/).filter((w) => w.trim() !== '');
}

/** Holds the automaton for the current SafeKeyWords, rebuilt only when the option's text changes. */
export class SafeKeywordCheck {
  private builtFor: string | undefined;
  private automaton = new KeywordAutomaton([]);

  automatonFor(keywords: string): KeywordAutomaton {
    if (keywords !== this.builtFor) {
      this.automaton = new KeywordAutomaton(parseKeywordList(keywords));
      this.builtFor = keywords;
    }
    return this.automaton;
  }
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The text of a message content: a string, or the text of its parts (OpenAI `text`, or `content`). */
function* contentTexts(content: unknown): Generator<string> {
  if (typeof content === 'string') {
    yield content;
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content) {
    if (typeof part === 'string') yield part;
    else if (isObject(part)) {
      if (typeof part.text === 'string') yield part.text;
      if (part.content !== undefined) yield* contentTexts(part.content);
    }
  }
}

/**
 * Every text a chat request (in the OpenAI shape every dialect is read into) puts in the prompt:
 * each message's content and text parts, tool results included.
 */
export function* chatPromptTexts(body: Json): Generator<string> {
  const messages = body.messages;
  if (!Array.isArray(messages)) return;
  for (const m of messages) if (isObject(m)) yield* contentTexts(m.content);
}

/** The first keyword found in any of `texts`. */
export function findKeyword(automaton: KeywordAutomaton, texts: Iterable<string>): string | undefined {
  if (automaton.size === 0) return undefined;
  for (const text of texts) {
    const word = automaton.find(text);
    if (word !== undefined) return word;
  }
  return undefined;
}

/** What the check needs of the options. */
export interface SafetyOptions {
  EnableSafe: boolean;
  SafeToolName: string;
  SafeKeyWords: string;
}

/** The keyword a prompt holds when EnableSafe is on, with the rule's name; undefined when it may pass. */
export function refusedPrompt(
  check: SafeKeywordCheck,
  o: SafetyOptions,
  texts: () => Iterable<string>,
): { rule: string; keyword: string } | undefined {
  if (!o.EnableSafe) return undefined;
  const keyword = findKeyword(check.automatonFor(o.SafeKeyWords), texts());
  return keyword === undefined ? undefined : { rule: o.SafeToolName, keyword };
}
