import type { SecretBox } from '../../crypto/secret-box.js';
import type { SourceSystem } from '../source.js';

/** What every mapper knows besides the row. */
export interface MapContext {
  system: SourceSystem;
  box: SecretBox;
  nowSeconds: number;
  /** Users present in the target after the users step (imported now or before). */
  userIds: ReadonlySet<number>;
}

/** A row in our shape, or why it cannot be imported. `note` flags something the operator should check. */
export type Mapped<T> = { row: T; note?: string } | { skip: string };

/** A JSON object column kept as JSON text; anything else (empty, broken, an array) becomes `{}`. */
export function objectJson(value: unknown): string {
  return value && typeof value === 'object' && !Array.isArray(value) ? JSON.stringify(value) : '{}';
}
