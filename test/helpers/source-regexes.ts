// Every regular expression written in src/: regex literals and `new RegExp` / `RegExp` calls, found with the TypeScript
// parser.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface SourceRegex {
  /** `src/...:line`, for the failure message. */
  where: string;
  source: string;
  flags: string;
  /** Set when the pattern is not a literal, so no checker can see it: the guard refuses these. */
  dynamic?: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

function literalText(node: ts.Expression | undefined): string | undefined {
  if (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))) return node.text;
  return undefined;
}

function regexesIn(file: string, root: string): SourceRegex[] {
  const text = readFileSync(file, 'utf8');
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: SourceRegex[] = [];
  const where = (node: ts.Node) =>
    `${relative(root, file)}:${sourceFile.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = node.getText(sourceFile);
      const end = literal.lastIndexOf('/');
      found.push({ where: where(node), source: literal.slice(1, end), flags: literal.slice(end + 1) });
    } else if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'RegExp'
    ) {
      const [pattern, flags] = node.arguments ?? [];
      const source = literalText(pattern);
      const flagText = flags === undefined ? '' : literalText(flags);
      if (source === undefined || flagText === undefined) {
        found.push({ where: where(node), source: '', flags: '', dynamic: node.getText(sourceFile) });
      } else {
        found.push({ where: where(node), source, flags: flagText });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

/** Every regex under `dir` (src/ by default), in file order. */
export function sourceRegexes(root: string, dir = 'src'): SourceRegex[] {
  return sourceFiles(join(root, dir)).flatMap((file) => regexesIn(file, root));
}
