/** One thing a provider lowering had to drop or change in a tool's schema. */
export interface LoweringNote {
  tool: string;
  /** JSON Pointer into the tool's parameter schema. */
  path: string;
  action: 'dropped' | 'changed' | 'not-strict';
  detail: string;
}

/** A provider's tools plus the notes of what the lowering lost or changed. */
export interface Lowered<T> {
  tools: T[];
  notes: LoweringNote[];
}

/** Keywords that carry nothing a model uses; dropping them is not worth a note. */
export const SILENT_KEYWORDS = new Set(['$schema', '$id', '$comment']);

/** Escapes one JSON Pointer segment. */
export function pointer(path: string, segment: string | number): string {
  return `${path}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}
