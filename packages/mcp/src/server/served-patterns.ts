import type { Toolset } from '@anytool/core';
import { linearPatterns } from '../shared/linear-patterns.js';

/**
 * Compiles the argument validator of every served tool with its schema's patterns on the
 * linear-time engine: a served tool's callers are untrusted, and JavaScript's engine
 * backtracks, so an argument made for a pattern such as `^(a+)+$` would hold the event loop
 * (and every other caller) for as long as it takes. Throws the first tool's
 * `UNSUPPORTED_PATTERN` (or `INVALID_SCHEMA`) error; gives every tool's error to `report`
 * instead when one is given (a tool that cannot compile then answers each call with an error result).
 */
export function compileServedPatterns(toolset: Toolset, report?: (error: unknown) => void): void {
  for (const tool of toolset.tools) {
    try {
      tool.compile({ patterns: linearPatterns });
    } catch (error) {
      if (report === undefined) throw error;
      report(error);
    }
  }
}
