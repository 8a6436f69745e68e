// The import graph of src/ and workers/, read with the TypeScript compiler: every import of every file, resolved, for
// the architecture tests.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const SRC = join(ROOT, 'src');
/** The worker processes' and threads' entries and wiring, beside src/ (the design card's layout). */
export const WORKERS = join(ROOT, 'workers');

export interface Import {
  file: string;
  /** `src/…` path of the imported file, or the package name. */
  target: string;
  /** The specifier as written (`qr`, `./qr-matrix.js`). */
  specifier: string;
  /** Erased by the compiler: `import type`, `export type`, or every named binding marked `type`. */
  typeOnly: boolean;
  /** `import()`: loaded when the code runs, not with the importing module. */
  dynamic: boolean;
  /** The names it imports (`default` for a default import, `*` for a namespace); empty for a side-effect import. */
  names: string[];
}

/** Every .ts file under `dir`, as absolute paths. */
export function sourceFiles(dir: string = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** A file's syntax tree. */
export function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The names an import or re-export declaration binds, and whether all of them are types. */
function bindingsOf(node: ts.ImportDeclaration | ts.ExportDeclaration): { names: string[]; typeOnly: boolean } {
  if (ts.isExportDeclaration(node)) {
    const clause = node.exportClause;
    if (!clause) return { names: ['*'], typeOnly: node.isTypeOnly };
    if (ts.isNamespaceExport(clause)) return { names: ['*'], typeOnly: node.isTypeOnly };
    const names = clause.elements.map((element) => (element.propertyName ?? element.name).text);
    return {
      names,
      typeOnly: node.isTypeOnly || (names.length > 0 && clause.elements.every((element) => element.isTypeOnly)),
    };
  }
  const clause = node.importClause;
  if (!clause) return { names: [], typeOnly: false };
  const names: string[] = clause.name ? ['default'] : [];
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
  const named = bindings && ts.isNamedImports(bindings) ? bindings.elements : [];
  for (const element of named) names.push((element.propertyName ?? element.name).text);
  const everyNamedIsType = named.length > 0 && named.every((element) => element.isTypeOnly);
  return { names, typeOnly: clause.isTypeOnly || (!clause.name && everyNamedIsType) };
}

/** Every static, re-exported and dynamic import of a file, resolved to a path under src/ or a package name. */
export function importsOf(path: string): Import[] {
  const file = relative(ROOT, path);
  const found: Import[] = [];
  const add = (specifier: string, typeOnly: boolean, dynamic: boolean, names: string[]) => {
    const target = specifier.startsWith('.')
      ? relative(ROOT, resolve(dirname(path), specifier)).replace(/\.js$/, '.ts')
      : specifier.startsWith('@')
        ? specifier.split('/').slice(0, 2).join('/')
        : specifier.split('/')[0]!;
    found.push({ file, target, specifier, typeOnly, dynamic, names });
  };
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const { names, typeOnly } = bindingsOf(node);
      add(node.moduleSpecifier.text, typeOnly, false, names);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      ts.isStringLiteral(node.arguments[0]!)
    ) {
      add(node.arguments[0].text, false, true, ['*']);
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(path));
  return found;
}

/** Every import of every file in src/ and workers/. */
export const SOURCE_IMPORTS: Import[] = [...sourceFiles(SRC), ...sourceFiles(WORKERS)].flatMap(importsOf);
