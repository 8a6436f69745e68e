// Debian's python3-segno (its helpers an independent implementation of the payload formats), run once per file for the
// values a file compares with.
import { execFileSync } from 'node:child_process';

/**
 * Runs the Python statements (each assigning `out['name'] = …` with `h` = segno.helpers) and returns `out`. The pyenv
 * python3 on PATH lacks segno.
 */
export function segnoData(statements: readonly string[]): Record<string, string> {
  const script = ['import json, segno.helpers as h', 'out = {}', ...statements, 'print(json.dumps(out))'].join('\n');
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8', timeout: 20_000 })) as Record<
    string,
    string
  >;
}
