import { describe, expect, it } from 'vitest';
import { TurnEnd } from './turn-end.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** A TurnEnd whose failing job fails the test (rethrown, an uncaught error). */
const strictTurnEnd = () =>
  new TurnEnd((err) => {
    throw err;
  });

describe('TurnEnd', () => {
  it("runs a turn's jobs in order once the turn's callbacks and microtasks have run", async () => {
    const turn = strictTurnEnd();
    const ran: string[] = [];
    turn.defer(() => ran.push('a'));
    setImmediate(() => ran.push('timer scheduled after a'));
    turn.defer(() => ran.push('b'));
    await Promise.resolve();
    expect(ran).toEqual([]);
    await nextTurn();
    expect(ran).toEqual(['a', 'b', 'timer scheduled after a']);
  });

  it('keeps running the other jobs when one throws, and reports it', async () => {
    const errors: unknown[] = [];
    const turn = new TurnEnd((err) => errors.push(err));
    const ran: string[] = [];
    turn.defer(() => ran.push('before'));
    turn.defer(() => {
      throw new Error('broken reply');
    });
    turn.defer(() => ran.push('after'));
    await nextTurn();
    expect(ran).toEqual(['before', 'after']);
    expect(errors).toEqual([new Error('broken reply')]);
  });

  it('runs a job deferred by a job at the end of the next turn', async () => {
    const turn = strictTurnEnd();
    const ran: string[] = [];
    turn.defer(() => {
      ran.push('first');
      turn.defer(() => ran.push('second'));
    });
    await nextTurn();
    expect(ran).toEqual(['first']);
    await nextTurn();
    expect(ran).toEqual(['first', 'second']);
  });

  it('runs the first lane, then beforeWrites, then the writes, whatever order they were deferred in', async () => {
    const ran: string[] = [];
    const turn = new TurnEnd(
      (err) => {
        throw err;
      },
      () => ran.push('journal written'),
    );
    turn.defer(() => ran.push('reply end'));
    turn.deferFirst(() => ran.push('settlement a'));
    turn.defer(() => ran.push('other reply'));
    turn.deferFirst(() => ran.push('settlement b'));
    await nextTurn();
    expect(ran).toEqual(['settlement a', 'settlement b', 'journal written', 'reply end', 'other reply']);
  });

  it('still writes the replies when a first-lane job or beforeWrites throws', async () => {
    const errors: unknown[] = [];
    const ran: string[] = [];
    const turn = new TurnEnd(
      (err) => errors.push(err),
      () => {
        throw new Error('journal full');
      },
    );
    turn.deferFirst(() => {
      throw new Error('settlement broke');
    });
    turn.defer(() => ran.push('reply end'));
    await nextTurn();
    expect(ran).toEqual(['reply end']);
    expect(errors).toEqual([new Error('settlement broke'), new Error('journal full')]);
  });
});
