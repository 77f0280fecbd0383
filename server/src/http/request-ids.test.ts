import { describe, expect, it } from 'vitest';
import { requestIdSource } from './request-ids.js';

describe('request ids', () => {
  it('are 24 hex characters, distinct within a process and between processes', () => {
    const a = requestIdSource();
    const b = requestIdSource();
    const ids = new Set(Array.from({ length: 1000 }, () => a()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(b().slice(0, 12)).not.toBe(a().slice(0, 12));
  });
});
