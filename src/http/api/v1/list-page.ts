// The one list shape of the API: `?limit=&cursor=` in, `{items, nextCursor}` out.
import { z } from 'zod';
import { PAGE_SIZE } from '../../../domain/list-page.js';

export const PageQueryFields = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(PAGE_SIZE.max)
    .optional()
    .describe(`Items per page (default ${PAGE_SIZE.default}, at most ${PAGE_SIZE.max}).`),
  cursor: z.string().min(1).max(200).optional().describe('The `nextCursor` of the previous page.'),
};

export const PageQuery = z.strictObject(PageQueryFields);

/** A page of `item`s, newest first. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  });
}
