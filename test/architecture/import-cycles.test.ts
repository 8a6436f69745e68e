// No runtime import cycle in src/ and workers/: a module never waits, while it loads, on a module that imports it back.
import { describe, expect, it } from 'vitest';
import { SOURCE_IMPORTS } from './source-imports.js';

/** The modules each module needs loaded before it runs: static imports that survive compilation (types are erased). */
function runtimeGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const imp of SOURCE_IMPORTS) {
    if (!graph.has(imp.file)) graph.set(imp.file, []);
    if (imp.typeOnly || imp.dynamic || !/^(src|workers)\//.test(imp.target)) continue;
    graph.get(imp.file)!.push(imp.target);
  }
  return graph;
}

/** The strongly connected components of more than one module, or of one that imports itself (Tarjan's algorithm). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

describe('import cycles', () => {
  it('finds a cycle where there is one (the check below would pass vacuously otherwise)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cyclesOf(graph)).toEqual([['a', 'b', 'c']]);
    expect(runtimeGraph().get('src/services/generate-qr.ts')).toContain('src/services/designs.ts');
  });

  it('src/ and workers/ have no runtime import cycle (type-only imports and import() do not count)', () => {
    expect(cyclesOf(runtimeGraph())).toEqual([]);
  });
});
