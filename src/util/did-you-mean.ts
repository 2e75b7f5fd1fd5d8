/**
 * "Did you mean" for a mistyped command or flag: the closest candidate by edit distance (adjacent
 * swaps count as one edit), if it is close enough to be what was meant. Ties go to the earlier
 * candidate. Pure; never throws. Twenty lines were not worth a dependency.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    if (c === word) continue;
    // Flags are compared without their dashes, so `--nope` is not "two characters away" from `--model`.
    const [w, k] = [word.replace(/^--?/, "").toLowerCase(), c.replace(/^--?/, "").toLowerCase()];
    const d = editDistance(w, k);
    const longest = Math.max(w.length, k.length);
    // At most 3 edits, and more than 40% of the longer word left as it was.
    if (d > 3 || (longest - d) / longest <= 0.4) continue;
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}
