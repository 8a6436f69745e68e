// A portal page's notice: a fixed sentence chosen by a code in the query string, so nothing from the URL is echoed.
import { z } from 'zod';

/** The query string of a page that shows a notice after a redirect (`?notice=deleted`). */
export const NoticeQuery = z.object({ notice: z.string().max(32).optional() });

/** The sentence `code` names in `notices`; an unknown or missing code shows none. */
export function noticeFrom(notices: Readonly<Record<string, string>>, code: string | undefined): string | undefined {
  return code !== undefined && Object.hasOwn(notices, code) ? notices[code] : undefined;
}
