// Request hooks that never wait are written with `done`, not `async`: an async hook costs every request it runs on a
// promise and a microtask turn, for nothing.
import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse, ROOT, sourceFiles } from './source-imports.js';

/** Hooks that run on requests (onRoute, onReady, onClose and preClose run once, and may stay async). */
const REQUEST_HOOKS = new Set([
  'onRequest',
  'preParsing',
  'preValidation',
  'preHandler',
  'preSerialization',
  'onSend',
  'onResponse',
  'onError',
  'onTimeout',
  'onRequestAbort',
]);

/** True when `body` awaits anywhere outside the functions nested in it. */
function awaits(body: ts.Node): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found || ts.isFunctionLike(node)) return;
    if (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier)) found = true;
    else ts.forEachChild(node, visit);
  };
  ts.forEachChild(body, visit);
  return found;
}

/** `addHook('<request hook>', async … => …)` calls in a file whose function never awaits, as `file:line hook`. */
function asyncHooksWithoutAwait(file: string, source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const [name, hook] = node.arguments;
      if (
        node.expression.name.text === 'addHook' &&
        name !== undefined &&
        ts.isStringLiteral(name) &&
        REQUEST_HOOKS.has(name.text) &&
        hook !== undefined &&
        (ts.isArrowFunction(hook) || ts.isFunctionExpression(hook)) &&
        hook.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword) &&
        !awaits(hook.body)
      ) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push(`${relative(ROOT, file)}:${line} ${name.text}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('request hooks', () => {
  it('finds an async hook that never waits where there is one (the check below would pass vacuously otherwise)', () => {
    const text =
      "app.addHook('onSend', async (_q, reply, payload) => { reply.header('a', 'b'); return payload; });\n" +
      "app.addHook('onRequest', async (q) => { q.x = await look(); });\n" +
      "app.addHook('onClose', async () => {});\n";
    const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
    expect(asyncHooksWithoutAwait('x.ts', source)).toEqual(['x.ts:1 onSend']);
  });

  it('in src/, every request hook that never waits is synchronous (done), not async', () => {
    const found = sourceFiles().flatMap((file) => asyncHooksWithoutAwait(file, parse(file)));
    expect(found).toEqual([]);
  });
});
