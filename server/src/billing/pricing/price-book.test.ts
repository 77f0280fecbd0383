import { describe, expect, it } from 'vitest';
import type { PriceRow } from '../../db/tables.js';
import { PriceBook, parseExtraRatios } from './price-book.js';

function row(model: string, patch: Partial<PriceRow> = {}): PriceRow {
  return {
    model,
    type: 'tokens',
    channel_type: 1,
    input: 1,
    output: 2,
    locked: 0,
    extra_ratios: '{}',
    ...patch,
  };
}

describe('PriceBook.lookup', () => {
  it('finds an exact model and parses the row', () => {
    const book = new PriceBook([
      row('gpt-4o', {
        input: 1.25,
        output: 5,
        channel_type: 1,
        locked: 1,
        extra_ratios: '{"cached_read_tokens":0.5}',
      }),
    ]);
    expect(book.lookup('gpt-4o')).toEqual({
      model: 'gpt-4o',
      type: 'tokens',
      channelType: 1,
      input: 1.25,
      output: 5,
      locked: true,
      extraRatios: { cached_read_tokens: 0.5 },
    });
    expect(book.size).toBe(1);
  });

  it('prefers the exact model over a wildcard that also matches', () => {
    const book = new PriceBook([row('gpt-4o*', { input: 9 }), row('gpt-4o', { input: 1 })]);
    expect(book.lookup('gpt-4o')?.input).toBe(1);
    expect(book.lookup('gpt-4o-mini')?.input).toBe(9);
    expect(book.lookup('gpt-4o-mini')?.model).toBe('gpt-4o*');
  });

  it('picks the longest matching wildcard prefix, whatever the row order', () => {
    const rows = [row('gpt-*', { input: 1 }), row('gpt-4o-mini*', { input: 3 }), row('gpt-4*', { input: 2 })];
    for (const order of [rows, [...rows].reverse(), [rows[1]!, rows[0]!, rows[2]!]]) {
      const book = new PriceBook(order);
      expect(book.lookup('gpt-4o-mini-2024-07-18')?.model).toBe('gpt-4o-mini*');
      expect(book.lookup('gpt-4.1')?.model).toBe('gpt-4*');
      expect(book.lookup('gpt-3.5-turbo')?.model).toBe('gpt-*');
    }
  });

  it('matches a wildcard whose prefix is the whole model name, and a bare * as catch-all', () => {
    const book = new PriceBook([row('claude-*', { input: 4 })]);
    expect(book.lookup('claude-')?.input).toBe(4);
    expect(book.lookup('claude')).toBeUndefined();
    const withCatchAll = new PriceBook([row('*', { input: 30 }), row('claude-*', { input: 4 })]);
    expect(withCatchAll.lookup('anything')?.input).toBe(30);
    expect(withCatchAll.lookup('claude-3')?.input).toBe(4);
    expect(withCatchAll.lookup('')?.input).toBe(30);
  });

  it('answers undefined when nothing matches (no silent default price)', () => {
    const book = new PriceBook([row('gpt-4o'), row('claude-*')]);
    expect(book.lookup('unknown-model')).toBeUndefined();
    expect(book.lookup('gpt-4')).toBeUndefined();
    expect(book.lookup('GPT-4O')).toBeUndefined();
    expect(new PriceBook([]).lookup('gpt-4o')).toBeUndefined();
  });

  it('treats * inside a name literally and only a trailing * as a wildcard', () => {
    const book = new PriceBook([row('a*b', { input: 7 })]);
    expect(book.lookup('a*b')?.input).toBe(7);
    expect(book.lookup('aXb')).toBeUndefined();
  });

  it('reads times prices and treats an unknown type as tokens', () => {
    const book = new PriceBook([
      row('mj_imagine', { type: 'times', input: 50 }),
      row('odd', { type: 'weird' }),
    ]);
    expect(book.lookup('mj_imagine')?.type).toBe('times');
    expect(book.lookup('odd')?.type).toBe('tokens');
  });

  it('does not depend on the rows after construction', () => {
    const rows = [row('gpt-4o', { input: 1 })];
    const book = new PriceBook(rows);
    rows[0]!.input = 99;
    rows.push(row('new'));
    expect(book.lookup('gpt-4o')?.input).toBe(1);
    expect(book.lookup('new')).toBeUndefined();
    expect(book.all().map((p) => p.model)).toEqual(['gpt-4o']);
  });
});

describe('parseExtraRatios', () => {
  it('keeps known keys with non-negative numbers', () => {
    expect(
      parseExtraRatios('{"cached_read_tokens":0.1,"cached_write_tokens":1.25,"input_audio_tokens":0}'),
    ).toEqual({ cached_read_tokens: 0.1, cached_write_tokens: 1.25, input_audio_tokens: 0 });
    expect(parseExtraRatios('')).toEqual({});
    expect(parseExtraRatios('null')).toEqual({});
  });

  it('drops bad entries and says why, without failing the row', () => {
    const problems: string[] = [];
    const ratios = parseExtraRatios(
      '{"reasoning_tokens":2,"bogus":1,"output_audio_tokens":-1,"input_image_tokens":"3"}',
      (p) => problems.push(p),
    );
    expect(ratios).toEqual({ reasoning_tokens: 2 });
    expect(problems).toHaveLength(3);
    expect(parseExtraRatios('{not json', (p) => problems.push(p))).toEqual({});
    expect(parseExtraRatios('[1]', (p) => problems.push(p))).toEqual({});
    expect(problems).toHaveLength(5);
  });

  it('reports problems per model through the book', () => {
    const seen: string[] = [];
    const book = new PriceBook([row('m', { extra_ratios: '{"nope":1}' })], (model, p) =>
      seen.push(`${model}: ${p}`),
    );
    expect(book.lookup('m')?.extraRatios).toEqual({});
    expect(seen).toEqual(['m: unknown extra ratio nope']);
  });
});
