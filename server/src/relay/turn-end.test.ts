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
});
