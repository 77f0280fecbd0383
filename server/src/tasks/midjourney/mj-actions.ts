// Which Midjourney action a submit is, and the model it is billed as (`mj_[turbo_|relax_]<action>`,
// the names of the default price table). midjourney-proxy's submit paths name some actions; the
// others are read from the body (`customId` of submit/action, `action` of submit/change, the
// "<taskId> U1" content of submit/simple-change).

export const MJ_MODES = ['mj-fast', 'mj-turbo', 'mj-relax'] as const;
export type MjMode = (typeof MJ_MODES)[number];

/** The submit endpoints, relative to `/mj/`: the action each names, or how to find it. */
export const MJ_SUBMIT_PATHS = [
  'submit/imagine',
  'submit/action',
  'submit/shorten',
  'submit/modal',
  'submit/change',
  'submit/simple-change',
  'submit/describe',
  'submit/blend',
  'insight-face/swap',
  'submit/upload-discord-images',
] as const;
export type MjSubmitPath = (typeof MJ_SUBMIT_PATHS)[number];

const FIXED: Partial<Record<MjSubmitPath, string>> = {
  'submit/imagine': 'IMAGINE',
  'submit/shorten': 'SHORTEN',
  'submit/modal': 'MODAL',
  'submit/describe': 'DESCRIBE',
  'submit/blend': 'BLEND',
  'insight-face/swap': 'SWAP_FACE',
  'submit/upload-discord-images': 'UPLOAD',
};

const CHANGE_ACTIONS = new Set(['UPSCALE', 'VARIATION', 'REROLL']);
const SIMPLE_CHANGE: Record<string, string> = { U: 'UPSCALE', V: 'VARIATION', R: 'REROLL' };

/** A submit that names its action wrongly: the client's error (code 4). */
export class MjActionError extends Error {}

/** The action of a button's `customId` (`MJ::JOB::upsample::1::<hash>`, `MJ::Inpaint::...`). */
export function actionOfCustomId(customId: string): string {
  const id = customId.toLowerCase();
  if (id.includes('high_variation')) return 'HIGH_VARIATION';
  if (id.includes('low_variation')) return 'LOW_VARIATION';
  if (id.includes('upsample')) return 'UPSCALE';
  if (id.includes('variation')) return 'VARIATION';
  if (id.includes('reroll')) return 'REROLL';
  if (id.includes('customzoom')) return 'CUSTOM_ZOOM';
  if (id.includes('outpaint') || id.includes('zoom')) return 'ZOOM';
  if (id.includes('pan_')) return 'PAN';
  if (id.includes('inpaint')) return 'INPAINT';
  throw new MjActionError(`customId ${customId} names no action the gateway knows`);
}

export interface MjSubmitShape {
  action: string;
  /** The task the action continues (its buttons), when there is one. */
  parentId: string | undefined;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** The action and parent task of a submit. Throws MjActionError for a body that names neither. */
export function submitShape(path: MjSubmitPath, body: Record<string, unknown>): MjSubmitShape {
  const fixed = FIXED[path];
  if (fixed) return { action: fixed, parentId: text(body.taskId) };
  if (path === 'submit/action') {
    const customId = text(body.customId);
    const taskId = text(body.taskId);
    if (!customId || !taskId) throw new MjActionError('customId and taskId are required');
    return { action: actionOfCustomId(customId), parentId: taskId };
  }
  if (path === 'submit/change') {
    const action = text(body.action)?.toUpperCase();
    const taskId = text(body.taskId);
    if (!action || !CHANGE_ACTIONS.has(action) || !taskId)
      throw new MjActionError('action (UPSCALE, VARIATION or REROLL) and taskId are required');
    return { action, parentId: taskId };
  }
  // submit/simple-change: "<taskId> U1"
  const content = text(body.content) ?? '';
  const m = /^(\S+)\s+([UVR])([1-4])?$/i.exec(content);
  if (!m) throw new MjActionError('content must be "<taskId> U1..U4, V1..V4 or R"');
  return { action: SIMPLE_CHANGE[m[2]!.toUpperCase()]!, parentId: m[1] };
}

/** `mj_imagine`, `mj_turbo_upscale`, `mj_relax_describe`. */
export function billedModel(mode: MjMode | undefined, action: string): string {
  const prefix = mode === 'mj-turbo' ? 'mj_turbo_' : mode === 'mj-relax' ? 'mj_relax_' : 'mj_';
  return prefix + action.toLowerCase();
}

/** What the row's `mode` column holds. */
export function modeName(mode: MjMode | undefined): string {
  return mode === 'mj-turbo' ? 'turbo' : mode === 'mj-relax' ? 'relax' : 'fast';
}
