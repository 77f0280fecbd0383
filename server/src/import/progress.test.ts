import { describe, expect, it } from 'vitest';
import { terminalProgress } from './progress.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream };
}

describe('terminalProgress', () => {
  it('draws one rewritten line on a terminal and ends it', () => {
    const { writes, stream } = fakeStream(true);
    const p = terminalProgress(stream);
    p.start('logs', 4);
    p.advance(4);
    p.done();
    expect(writes[0]).toBe(`\rlogs [${'.'.repeat(30)}] 0/4`);
    expect(writes).toContain(`\rlogs [${'#'.repeat(30)}] 4/4`);
    expect(writes.at(-1)).toBe('\n');
  });

  it('writes nothing when the output is not a terminal', () => {
    const { writes, stream } = fakeStream(false);
    const p = terminalProgress(stream);
    p.start('users', 10);
    p.advance(10);
    p.done();
    expect(writes).toEqual([]);
  });
});
