import type { ArgumentProblem } from '@anytool/core/internal';

/** Problems a failed validation sends back at most: a schema of shared branches can find millions. */
export const MAX_PROBLEMS = 20;

/** Arguments to validate against the schema `key`, sent with the schema when the worker has not compiled it. */
export interface ValidationRequest {
  id: number;
  key: number;
  schema?: object;
  args: unknown;
  /** Schemas the worker may drop: the host keeps only so many compiled there. */
  forget: number[];
}

/**
 * The worker's answer: compiled (validation starts now), valid (with defaults filled), invalid, or
 * failed. A validation's answer says how long it took on the worker (`ms`): the host's timer may
 * fire late on a busy event loop, and a validation past the deadline is refused all the same.
 */
export type ValidationAnswer =
  | { id: number; compiled: true }
  | { id: number; args: Record<string, unknown>; ms: number }
  | { id: number; problems: ArgumentProblem[]; more: number; ms: number }
  | { id: number; failed: string };
