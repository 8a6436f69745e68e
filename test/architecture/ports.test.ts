// Every port lives in src/domain/ports: a class that implements an interface implements one declared there.
import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importsOf, parse, ROOT, sourceFiles } from './source-imports.js';

interface Implementation {
  file: string;
  className: string;
  port: string;
  /** `src/…` path of the file the interface comes from: its import, or the file itself when declared there. */
  from: string;
}

/** Each `class … implements Port` (or `ns.Port`, through a namespace import) in a file, and where Port comes from. */
function implementationsIn(path: string): Implementation[] {
  const file = relative(ROOT, path);
  const imports = importsOf(path);
  const importedFrom = new Map<string, string>();
  for (const imp of imports) for (const name of imp.names) importedFrom.set(name, imp.target);
  /** `import * as ns from '…'`: the alias, and the file it names. */
  const namespaces = new Map<string, string>();
  const found: Implementation[] = [];
  const visit = (node: ts.Node) => {
    const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : undefined;
    if (bindings && ts.isNamespaceImport(bindings) && ts.isImportDeclaration(node)) {
      const specifier = (node.moduleSpecifier as ts.StringLiteral).text;
      const target = imports.find((imp) => imp.specifier === specifier)?.target;
      if (target !== undefined) namespaces.set(bindings.name.text, target);
    }
    if (ts.isClassDeclaration(node)) {
      const implemented =
        node.heritageClauses?.filter((clause) => clause.token === ts.SyntaxKind.ImplementsKeyword) ?? [];
      for (const type of implemented.flatMap((clause) => clause.types)) {
        const { expression } = type;
        const qualified = ts.isPropertyAccessExpression(expression) && ts.isIdentifier(expression.expression);
        const port = qualified ? expression.name.text : expression.getText();
        const from = qualified ? namespaces.get(expression.expression.text) : importedFrom.get(port);
        found.push({ file, className: node.name?.text ?? '(anonymous)', port, from: from ?? file });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(path));
  return found;
}

const IMPLEMENTATIONS = sourceFiles().flatMap(implementationsIn);

describe('ports', () => {
  it('reads implements clauses (the check below would pass vacuously otherwise)', () => {
    expect(IMPLEMENTATIONS).toContainEqual({
      file: 'src/adapters/redis/invalidation-bus.redis.ts',
      className: 'RedisInvalidationBus',
      port: 'InvalidationBus',
      from: 'src/domain/ports/invalidation-bus.ts',
    });
    expect(IMPLEMENTATIONS).toContainEqual({
      file: 'src/adapters/sqlite/usage-meter.sqlite.ts',
      className: 'SqliteUsageMeter',
      port: 'UsageMeter',
      from: 'src/domain/ports/usage-meter.ts',
    });
    expect(IMPLEMENTATIONS.length).toBeGreaterThan(40);
  });

  it(
    'every interface an adapter (or service) implements is a port of src/domain/ports, never one declared beside ' +
      'an adapter',
    () => {
      const stray = IMPLEMENTATIONS.filter((it) => !it.from.startsWith('src/domain/ports/')).map(
        (it) => `${it.file}: ${it.className} implements ${it.port} from ${it.from}`,
      );
      expect(stray).toEqual([]);
    },
  );
});
