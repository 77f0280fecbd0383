import { describe, expect, it } from 'vitest';
import { actionOfCustomId, billedModel, MjActionError, submitShape } from './mj-actions.js';

describe('Midjourney actions', () => {
  it('reads the action of a button from its customId', () => {
    expect(actionOfCustomId('MJ::JOB::upsample::1::abc')).toBe('UPSCALE');
    expect(actionOfCustomId('MJ::JOB::variation::2::abc')).toBe('VARIATION');
    expect(actionOfCustomId('MJ::JOB::high_variation::1::abc::SOLO')).toBe('HIGH_VARIATION');
    expect(actionOfCustomId('MJ::JOB::low_variation::1::abc::SOLO')).toBe('LOW_VARIATION');
    expect(actionOfCustomId('MJ::JOB::reroll::0::abc::SOLO')).toBe('REROLL');
    expect(actionOfCustomId('MJ::Outpaint::50::1::abc::SOLO')).toBe('ZOOM');
    expect(actionOfCustomId('MJ::CustomZoom::abc')).toBe('CUSTOM_ZOOM');
    expect(actionOfCustomId('MJ::JOB::pan_left::1::abc::SOLO')).toBe('PAN');
    expect(actionOfCustomId('MJ::Inpaint::1::abc::SOLO')).toBe('INPAINT');
    expect(() => actionOfCustomId('MJ::BOOKMARK::abc')).toThrow(MjActionError);
  });

  it('reads change and simple-change bodies, refusing what names no action', () => {
    expect(submitShape('submit/change', { action: 'upscale', taskId: 't1', index: 1 })).toEqual({
      action: 'UPSCALE',
      parentId: 't1',
    });
    expect(submitShape('submit/simple-change', { content: 't2 V3' })).toEqual({
      action: 'VARIATION',
      parentId: 't2',
    });
    expect(submitShape('submit/simple-change', { content: 't3 R' })).toEqual({
      action: 'REROLL',
      parentId: 't3',
    });
    expect(() => submitShape('submit/change', { action: 'DESCRIBE', taskId: 't1' })).toThrow(MjActionError);
    expect(() => submitShape('submit/simple-change', { content: 't2 X1' })).toThrow(MjActionError);
    expect(() => submitShape('submit/action', { customId: 'MJ::JOB::upsample::1::a' })).toThrow(
      MjActionError,
    );
    expect(submitShape('submit/imagine', { prompt: 'x' })).toEqual({
      action: 'IMAGINE',
      parentId: undefined,
    });
    expect(submitShape('insight-face/swap', {})).toMatchObject({ action: 'SWAP_FACE' });
  });

  it('names the billed model by mode, as the default price table does', () => {
    expect(billedModel(undefined, 'IMAGINE')).toBe('mj_imagine');
    expect(billedModel('mj-fast', 'UPSCALE')).toBe('mj_upscale');
    expect(billedModel('mj-turbo', 'SWAP_FACE')).toBe('mj_turbo_swap_face');
    expect(billedModel('mj-relax', 'DESCRIBE')).toBe('mj_relax_describe');
  });
});
