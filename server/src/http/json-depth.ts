/**
 * The deepest nesting any JSON body may have. Far beyond what any API or model call sends, and low
 * enough that every recursive walk of a body (validation, translation, logging) stays far from the
 * stack's end: 5 000 levels of `custom_parameter` used to end in a RangeError and a 500.
 */
export const MAX_JSON_DEPTH = 64;

/** True when `value` nests objects or arrays more than `max` levels deep (walks at most `max` levels). */
export function nestedTooDeep(value: unknown, max = MAX_JSON_DEPTH, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth >= max) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (nestedTooDeep(v, max, depth + 1)) return true;
    return false;
  }
  for (const k in value)
    if (nestedTooDeep((value as Record<string, unknown>)[k], max, depth + 1)) return true;
  return false;
}
