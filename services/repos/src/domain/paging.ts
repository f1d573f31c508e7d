/** A PageRequest as rows to skip and take. */
import type { PageRequest } from '@cairn/proto/cairn/common/v1/common';

export interface PageWindow {
  limit: number;
  offset: number;
}

/** Undefined (every row) when no limit is given; the gateway always sends one, already clamped. */
export function pageWindow(page: PageRequest | undefined): PageWindow | undefined {
  if (page === undefined || page.limit <= 0) return undefined;
  return { limit: page.limit, offset: (Math.max(page.page, 1) - 1) * page.limit };
}

/** `LIMIT … OFFSET …` values for a list that must be bounded: no limit given means `fallbackLimit`. */
export function boundedWindow(page: PageRequest | undefined, fallbackLimit: number): PageWindow {
  return pageWindow(page) ?? { limit: fallbackLimit, offset: (Math.max(page?.page ?? 1, 1) - 1) * fallbackLimit };
}
