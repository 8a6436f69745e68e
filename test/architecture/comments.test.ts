// Comments in src/ and workers/ state the contract and the one-line why: an issue number, a date or a measured figure
// in one fails here, naming the file and line (history goes to docs/BENCHMARKS.md or docs/decisions/).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Comment {
  /** `src/…:line` of the comment's first line. */
  at: string;
  text: string;
}

/** Every comment of a file, found through the compiler's own trivia so strings and templates never count as one. */
function commentsOf(path: string): Comment[] {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const seen = new Map<number, Comment>();
  const visit = (node: ts.Node) => {
    for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) {
      if (seen.has(range.pos)) continue;
      const line = source.getLineAndCharacterOfPosition(range.pos).line + 1;
      seen.set(range.pos, { at: `${relative(ROOT, path)}:${line}`, text: text.slice(range.pos, range.end) });
    }
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...seen.values()];
}

/** What history looks like in a comment; a code span (`…`) is an example of a format and is not read. */
const HISTORY: { what: string; pattern: RegExp }[] = [
  { what: 'an issue number', pattern: /(?:^|[\s(,])#\d+\b|\bissue \d+/i },
  { what: 'a date', pattern: /\b20\d\d-[01]\d(?:-[0-3]\d)?\b/ },
  { what: 'a timing in microseconds', pattern: /\d\s?µs\b/ },
  { what: 'a throughput', pattern: /\breq(?:uest)?s?\/s\b|\brequests a second\b/i },
  { what: 'a measured ratio', pattern: /\d(?:\.\d+)?×/ },
  { what: 'an approximate figure', pattern: /~\s?\d|\babout \d[\d.,]*\s?(?:ms|s|%|kB|MB)\b/ },
  { what: 'a measured difference', pattern: /\d(?:\.\d+)?% (?:faster|slower|more|less|fewer|larger|smaller)\b/ },
];

const FINDINGS = [...sourceFiles(SRC), ...sourceFiles(join(ROOT, 'workers'))]
  .flatMap(commentsOf)
  .flatMap(({ at, text }) => {
    const prose = text.replace(/`[^`\n]*`/g, '``');
    return HISTORY.filter(({ pattern }) => pattern.test(prose)).map(({ what }) => `${at}: ${what}`);
  });

describe('comments in src/', () => {
  it('carry no issue number, date or measured figure (those go to docs/BENCHMARKS.md or docs/decisions/)', () => {
    expect(FINDINGS).toEqual([]);
  });
});
