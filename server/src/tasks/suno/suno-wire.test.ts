import { describe, expect, it } from 'vitest';
import { percent, sunoRowUpdate } from './suno-wire.js';

describe('Suno task objects', () => {
  it('reads task states and the words some deployments answer instead', () => {
    expect(sunoRowUpdate({ task_id: 'a', status: 'IN_PROGRESS', progress: '45%' })?.patch).toMatchObject({
      status: 'IN_PROGRESS',
      progress: 45,
    });
    expect(sunoRowUpdate({ task_id: 'a', status: 'failed', fail_reason: 'x' })?.patch).toMatchObject({
      status: 'FAILURE',
      fail_reason: 'x',
    });
    expect(sunoRowUpdate({ task_id: 'a', status: 'complete' })?.patch).toMatchObject({
      status: 'SUCCESS',
      progress: 100,
    });
    expect(sunoRowUpdate({ task_id: 'a', status: 'weird' })?.patch.status).toBe('UNKNOWN');
    expect(sunoRowUpdate({ status: 'SUCCESS' })).toBeUndefined();
    expect(sunoRowUpdate('nope')).toBeUndefined();
  });

  it('keeps times in seconds and progress within 0..100', () => {
    expect(
      sunoRowUpdate({ task_id: 'a', status: 'SUCCESS', finish_time: 1_700_000_000_123 })?.patch.finish_time,
    ).toBe(1_700_000_000);
    expect(percent('250%')).toBe(100);
    expect(percent(-3)).toBe(0);
    expect(percent('n/a')).toBe(0);
  });
});
