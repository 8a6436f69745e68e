// A covering array of strength 2: rows in which every value of each dimension meets every value of every other
// dimension.

/**
 * Greedy (AETG-style, deterministic): each row is the one of the full product that covers the most pairs not yet
 * covered.
 */
export function pairwise<T extends Record<string, readonly unknown[]>>(
  dimensions: T,
): Array<{ [K in keyof T]: T[K][number] }> {
  const names = Object.keys(dimensions);
  const sizes = names.map((name) => dimensions[name]!.length);
  const product: number[][] = [[]];
  for (const size of sizes) {
    const next: number[][] = [];
    for (const row of product) for (let v = 0; v < size; v++) next.push([...row, v]);
    product.splice(0, product.length, ...next);
  }
  const pairKey = (i: number, vi: number, j: number, vj: number) => `${i}:${vi}|${j}:${vj}`;
  const uncovered = new Set<string>();
  for (let i = 0; i < sizes.length; i++)
    for (let j = i + 1; j < sizes.length; j++)
      for (let a = 0; a < sizes[i]!; a++) for (let b = 0; b < sizes[j]!; b++) uncovered.add(pairKey(i, a, j, b));
  const pairsOf = (row: number[]) => row.flatMap((a, i) => row.slice(i + 1).map((b, k) => pairKey(i, a, i + 1 + k, b)));
  const rows: number[][] = [];
  while (uncovered.size > 0) {
    let best = product[0]!;
    let bestGain = -1;
    for (const row of product) {
      const gain = pairsOf(row).filter((p) => uncovered.has(p)).length;
      if (gain > bestGain) [best, bestGain] = [row, gain];
    }
    for (const p of pairsOf(best)) uncovered.delete(p);
    rows.push(best);
  }
  return rows.map(
    (row) =>
      Object.fromEntries(row.map((v, i) => [names[i]!, dimensions[names[i]!]![v]])) as { [K in keyof T]: T[K][number] },
  );
}
