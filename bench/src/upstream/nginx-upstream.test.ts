import { describe, expect, it } from 'vitest';
import { nginxQuoted, replyDirectives } from './nginx-upstream.js';

describe('nginx reply directives', () => {
  it('quotes for nginx and refuses text with a $', () => {
    expect(nginxQuoted(`a'b\\c`)).toBe(`'a\\'b\\\\c'`);
    expect(() => nginxQuoted('costs $5')).toThrow();
  });

  it('splits a long reply into parts nginx can read and joins them in order', () => {
    const text = 'x'.repeat(7000);
    const conf = replyDirectives('text/event-stream', text);
    const sets = conf.split('\n').filter((l) => l.startsWith('set '));
    expect(sets).toHaveLength(3);
    for (const s of sets) expect(s.length).toBeLessThan(4096);
    expect(conf).toContain('default_type text/event-stream;');
    expect(conf).toContain('return 200 "$reply_0$reply_1$reply_2";');
  });
});
