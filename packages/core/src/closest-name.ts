/**
 * Levenshtein distance of two short strings (callers cut long ones first: the cost is the product of the lengths).
 */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Longest part of a mistyped word compared: what a person types, not a pasted blob. */
const COMPARED_CHARS = 64;

/**
 * The choice a mistyped `wanted` most likely meant, for a "did you mean" hint: the only choice it begins (`--form`
 * for `--format`), else the nearest by edit distance (case ignored) when it is at most a third of the choice's
 * length away (at least 2, so that two swapped letters count; at most 3). Undefined when nothing is that close.
 */
export function closestName(wanted: string, choices: readonly string[]): string | undefined {
  const probe = wanted.slice(0, COMPARED_CHARS).toLowerCase();
  if (probe.length >= 2) {
    const extended = choices.filter((choice) => choice.toLowerCase().startsWith(probe));
    if (extended.length === 1) return extended[0];
  }
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const choice of choices) {
    const distance = editDistance(probe, choice.slice(0, COMPARED_CHARS).toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [choice, distance];
  }
  if (best === undefined) return undefined;
  return bestDistance <= Math.min(3, Math.max(2, Math.floor(best.length / 3))) ? best : undefined;
}
