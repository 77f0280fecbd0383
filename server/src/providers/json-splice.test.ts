import { describe, expect, it } from 'vitest';
import {
  appendJsonMembers,
  memberText,
  scanJsonObject,
  skipJsonString,
  spliceJsonObject,
} from './json-splice.js';

const buf = (s: string) => Buffer.from(s);

describe('scanJsonObject', () => {
  it('locates top-level members and skips nested values, strings and escapes', () => {
    const text =
      '{ "model" : "gpt-4o", "messages":[{"role":"user","content":"a \\"quoted\\" } ] { text \\\\"}],' +
      '"n":2, "stream":true ,"x":null,"o":{"model":"inner"} }\n';
    const layout = scanJsonObject(buf(text));
    expect(layout?.members.map((m) => m.key)).toEqual(['model', 'messages', 'n', 'stream', 'x', 'o']);
    const b = buf(text);
    const get = (k: string) => {
      const m = layout?.members.find((x) => x.key === k);
      return m ? memberText(b, m) : undefined;
    };
    expect(get('model')).toBe('"gpt-4o"');
    expect(JSON.parse(get('messages') ?? '')).toEqual(JSON.parse(text).messages);
    expect(get('n')).toBe('2');
    expect(get('stream')).toBe('true');
    expect(get('x')).toBe('null');
    expect(get('o')).toBe('{"model":"inner"}');
  });

  it('decodes escaped keys and handles the empty object', () => {
    expect(scanJsonObject(buf('{"mo\\u0064el":1}'))?.members[0]?.key).toBe('model');
    expect(scanJsonObject(buf(' {} '))?.members).toEqual([]);
  });

  it('rejects what is not one object', () => {
    for (const s of ['[1]', '"x"', '{"a":1', '{"a":1} x', '{"a" 1}', '{a:1}', '']) {
      expect(scanJsonObject(buf(s)), s).toBeNull();
    }
  });

  it('finds the end of strings with backslash runs', () => {
    const s = buf('"a\\\\\\"b\\\\" tail');
    const end = skipJsonString(s, 0);
    expect(end).toBe(10);
    expect(JSON.parse(s.toString('utf8', 0, end))).toBe('a\\"b\\');
    expect(skipJsonString(buf('"never closed\\"'), 0)).toBe(-1);
  });
});

describe('spliceJsonObject', () => {
  it('replaces a value and keeps every other byte', () => {
    const text = '{"model":"alias", "messages":[{"role":"user","content":"hi"}],\n "temperature":0.70}';
    const b = buf(text);
    const layout = scanJsonObject(b);
    if (!layout) throw new Error('no layout');
    const out = spliceJsonObject(b, layout, { set: { model: JSON.stringify('gpt-4o') } }).toString();
    expect(out).toBe('{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"temperature":0.70}');
  });

  it('appends a missing member, removes one, and stays valid JSON', () => {
    const text = '{"stream":false,"stream_options":{"include_usage":true},"big":12345678901234567890}';
    const b = buf(text);
    const layout = scanJsonObject(b);
    if (!layout) throw new Error('no layout');
    const out = spliceJsonObject(b, layout, {
      set: { model: '"m"' },
      remove: ['stream_options'],
    }).toString();
    // The big integer keeps its digits (a parse+stringify round trip would not).
    expect(out).toBe('{"stream":false,"big":12345678901234567890,"model":"m"}');
    const empty = buf('{ }');
    const emptyLayout = scanJsonObject(empty);
    if (!emptyLayout) throw new Error('no layout');
    expect(JSON.parse(spliceJsonObject(empty, emptyLayout, { set: { a: '1' } }).toString())).toEqual({
      a: 1,
    });
  });

  it('removes the first, middle and last members', () => {
    const b = buf('{"a":1,"b":2,"c":3}');
    const layout = scanJsonObject(b);
    if (!layout) throw new Error('no layout');
    expect(spliceJsonObject(b, layout, { remove: ['a'] }).toString()).toBe('{"b":2,"c":3}');
    expect(spliceJsonObject(b, layout, { remove: ['b'] }).toString()).toBe('{"a":1,"c":3}');
    expect(spliceJsonObject(b, layout, { remove: ['c'] }).toString()).toBe('{"a":1,"b":2}');
    expect(spliceJsonObject(b, layout, { remove: ['a', 'b', 'c'] }).toString()).toBe('{}');
  });
});

describe('appendJsonMembers', () => {
  it('adds members before the closing brace and keeps every other byte', () => {
    const text = '{"model":"m","messages":[{"role":"user","content":"a } b"}],"n":1.50}  \n';
    const out = appendJsonMembers(buf(text), true, {
      stream_options: '{"include_usage":true}',
      user: '"u"',
    });
    expect(out?.toString()).toBe(
      '{"model":"m","messages":[{"role":"user","content":"a } b"}],"n":1.50,"stream_options":{"include_usage":true},"user":"u"}  \n',
    );
  });

  it('writes no leading comma into an empty object, and refuses text that does not end in a brace', () => {
    expect(appendJsonMembers(buf('{ }'), false, { a: '1', b: '2' })?.toString()).toBe('{ "a":1,"b":2}');
    expect(appendJsonMembers(buf('[1]'), true, { a: '1' })).toBeNull();
    expect(appendJsonMembers(buf(''), false, { a: '1' })).toBeNull();
  });
});
