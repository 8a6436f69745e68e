// The small HTML pages a scan gets when there is nowhere to send it, or a password is asked for (no script, no external
// resources): Eta templates in pages/, read and compiled when this module loads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Eta } from 'eta';
import { packagePath } from '../../package-root.js';

/** Every interpolation escaped unless a template opts out (`<%~`), as the portal's views. */
const eta = new Eta({ autoEscape: true });

/** The build does not copy the templates to dist/: built code reads them from the package's src/ as well. */
const PAGES_DIR = 'src/http/redirect/pages';

/**
 * A template written one element or sentence a line, as one line of HTML: a line break and the indentation around it
 * go where markup or a CSS rule is on either side, and become one space between words.
 */
export function joinLines(source: string): string {
  // A scan by hand rather than /[ \t]*\n[ \t]*/g, which backtracks quadratically on a long run of blanks.
  const text = source.trim();
  let joined = '';
  let from = 0;
  for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', from)) {
    let end = newline;
    while (end > from && isBlank(text[end - 1]!)) end--;
    let next = newline + 1;
    while (next < text.length && isBlank(text[next]!)) next++;
    joined += text.slice(from, end) + ('<>{};'.includes(text[end - 1]!) || '<>{}'.includes(text[next]!) ? '' : ' ');
    from = next;
  }
  return joined + text.slice(from);
}

function isBlank(char: string): boolean {
  return char === ' ' || char === '\t';
}

function template(name: string) {
  return eta.compile(joinLines(readFileSync(join(packagePath(PAGES_DIR), `${name}.eta`), 'utf8')));
}

const layout = template('page');
const bodies = {
  gone: template('gone'),
  expired: template('expired'),
  unanswerable: template('unanswerable'),
  notFound: template('not-found'),
  password: template('password'),
  tooManyGuesses: template('too-many-guesses'),
  tooManyGuessesForCode: template('too-many-guesses-for-code'),
};

/** A whole page, ending in a newline. */
function page(title: string, body: keyof typeof bodies, data: object = {}): string {
  return `${eta.render(layout, { title, body: eta.render(bodies[body], data) })}\n`;
}

/** "1 minute", "5 minutes": the wait a refusal names, at least a minute. */
function minutesOf(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

export const goneHtml = page('This code is no longer active', 'gone');
export const expiredHtml = page('This code has expired', 'expired');
export const unanswerableHtml = page('This request could not be answered', 'unanswerable');
export const notFoundHtml = page('Unknown code', 'notFound');

/**
 * The password form: posts to the address it was opened at (no action attribute, so the query string stays), works
 * without script. It names nothing of the code: not its target, not its name.
 */
export function passwordHtml(maxLength: number, wrong: boolean): string {
  return page('This code is protected', 'password', { maxLength, wrong });
}

export function tooManyGuessesHtml(retryAfterSeconds: number): string {
  return page('Too many attempts', 'tooManyGuesses', { wait: minutesOf(retryAfterSeconds) });
}

/**
 * The per-code ceiling: wrong passwords from many networks together; nobody's answer is checked until the window ends.
 */
export function tooManyGuessesForCodeHtml(retryAfterSeconds: number): string {
  return page('Too many attempts', 'tooManyGuessesForCode', { wait: minutesOf(retryAfterSeconds) });
}
