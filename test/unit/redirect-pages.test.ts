// The scan pages (src/http/redirect/pages/*.eta): byte for byte the pages the service has always answered, and the
// values they show escaped.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as pages from '../../src/http/redirect/pages.js';

const golden = JSON.parse(readFileSync(new URL('../fixtures/redirect-pages.json', import.meta.url), 'utf8')) as Record<
  string,
  string
>;

describe('scan pages', () => {
  it('are byte for byte the pages answered before they were templates', () => {
    expect({
      gone: pages.goneHtml,
      expired: pages.expiredHtml,
      unanswerable: pages.unanswerableHtml,
      notFound: pages.notFoundHtml,
      'password(64, false)': pages.passwordHtml(64, false),
      'password(200, true)': pages.passwordHtml(200, true),
      'tooManyGuesses(1)': pages.tooManyGuessesHtml(1),
      'tooManyGuesses(60)': pages.tooManyGuessesHtml(60),
      'tooManyGuesses(61)': pages.tooManyGuessesHtml(61),
      'tooManyGuessesForCode(3600)': pages.tooManyGuessesForCodeHtml(3600),
      'tooManyGuessesForCode(30)': pages.tooManyGuessesForCodeHtml(30),
    }).toEqual(golden);
  });

  it('join template lines as one line of HTML: nothing between tags or CSS rules, one space between words', () => {
    expect(pages.joinLines('<p>\n  one sentence.\n  Another\n  <b>x</b>\n</p>\n')).toBe(
      '<p>one sentence. Another<b>x</b></p>',
    );
    expect(pages.joinLines('<style>\n  a{b:c}\n  d{e:f;\n  g:h}\n</style>')).toBe('<style>a{b:c}d{e:f;g:h}</style>');
  });
});
