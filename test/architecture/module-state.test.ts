// No module-level mutable state in src/domain, src/services and src/render: what a module remembers, an object its
// caller owns holds.
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse, ROOT, SRC, sourceFiles } from './source-imports.js';

/** Constructors and literals whose value is a container that can change after the module has loaded. */
const CONTAINER = /^(new (Map|Set|WeakMap|WeakSet|Array|LRUCache)\b|\[|\{)/;
/** Calls and assignments that change a container in place. */
const MUTATORS = [
  'set',
  'add',
  'delete',
  'clear',
  'push',
  'pop',
  'shift',
  'unshift',
  'splice',
  'sort',
  'reverse',
  'fill',
  'copyWithin',
];

/** The top-level state of one file: `let` and `var` bindings, and containers a function of the file changes. */
function moduleStateIn(file: string, source: ts.SourceFile): string[] {
  const found: string[] = [];
  const containers = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const mutable = !(list.flags & ts.NodeFlags.Const);
    for (const declaration of list.declarations) {
      if (!ts.isIdentifier(declaration.name)) continue;
      const name = declaration.name.text;
      if (mutable) found.push(`${file}: top-level ${list.flags & ts.NodeFlags.Let ? 'let' : 'var'} ${name}`);
      else if (declaration.initializer && CONTAINER.test(declaration.initializer.getText())) containers.add(name);
    }
  }
  const changed = new Set<string>();
  const visit = (node: ts.Node) => {
    // name.set(…), name.push(…), …
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ts.isIdentifier(node.expression.expression)
    ) {
      if (containers.has(node.expression.expression.text) && MUTATORS.includes(node.expression.name.text))
        changed.add(node.expression.expression.text);
    }
    // name[i] = …, name.field = …
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    ) {
      const target = node.left;
      if (
        (ts.isElementAccessExpression(target) || ts.isPropertyAccessExpression(target)) &&
        ts.isIdentifier(target.expression)
      ) {
        if (containers.has(target.expression.text)) changed.add(target.expression.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const name of changed) found.push(`${file}: top-level ${name} changed after load`);
  return found;
}

const CHECKED = ['domain', 'services', 'render'].flatMap((layer) => sourceFiles(join(SRC, layer)));

describe('module state', () => {
  it('finds state where there is some (the check below would pass vacuously otherwise)', () => {
    const code = [
      'let hits = 0;',
      'const seen = new Map<string, number>();',
      'const LEVELS = new Set(["L", "M"]);',
      'const table = [1, 2];',
      'export function note(key: string) { seen.set(key, 1); table[0] = 3; return LEVELS.has(key) && hits; }',
    ].join('\n');
    const found = moduleStateIn('probe.ts', ts.createSourceFile('probe.ts', code, ts.ScriptTarget.Latest, true));
    expect(found).toEqual([
      'probe.ts: top-level let hits',
      'probe.ts: top-level seen changed after load',
      'probe.ts: top-level table changed after load',
    ]);
    expect(CHECKED.length).toBeGreaterThan(100);
  });

  it(
    'src/domain, src/services and src/render keep no module-level mutable state (no top-level let, no shared ' +
      'container changed)',
    () => {
      expect(CHECKED.flatMap((path) => moduleStateIn(relative(ROOT, path), parse(path)))).toEqual([]);
    },
  );
});
