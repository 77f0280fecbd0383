import { z } from 'zod';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;

export interface PageRequest<F extends string> {
  page: number;
  size: number;
  offset: number;
  order: { column: F; direction: 'asc' | 'desc' }[];
}

/**
 * The list query every paginated endpoint takes (one-hub's): `page` from 1, `size` up to 100,
 * `order` as comma-separated fields from a whitelist, `-` for descending; default `-id`.
 */
export function pageQuery<const F extends string>(orderable: readonly F[], defaultOrder = '-id') {
  return z
    .object({
      page: z.coerce.number().int('page must be a whole number').catch(1).default(1),
      size: z.coerce
        .number()
        .int('size must be a whole number')
        .min(1, 'size must be at least 1')
        .max(MAX_PAGE_SIZE, `size must not exceed ${MAX_PAGE_SIZE}`)
        .default(DEFAULT_PAGE_SIZE),
      order: z.string().trim().max(200).default(defaultOrder),
    })
    .transform((q, ctx): PageRequest<F> => {
      const page = Math.max(1, q.page);
      const order: PageRequest<F>['order'] = [];
      for (const part of (q.order || defaultOrder)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const desc = part.startsWith('-');
        const column = desc ? part.slice(1) : part;
        if (!(orderable as readonly string[]).includes(column)) {
          ctx.addIssue({
            code: 'custom',
            path: ['order'],
            message: `cannot order by "${column}"; allowed: ${orderable.join(', ')}`,
          });
          return z.NEVER;
        }
        order.push({ column: column as F, direction: desc ? 'desc' : 'asc' });
      }
      return { page, size: q.size, offset: (page - 1) * q.size, order };
    });
}

export interface PageResult<T> {
  data: T[];
  page: number;
  size: number;
  total_count: number;
}

export function pageResult<T>(req: { page: number; size: number }, data: T[], total: number): PageResult<T> {
  return { data, page: req.page, size: req.size, total_count: total };
}
