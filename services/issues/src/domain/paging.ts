/** Pages of a list, as SQL windows. */
import type { PageRequest } from '@cairn/proto/cairn/common/v1/common';

export interface PageWindow {
  limit: number;
  offset: number;
}

/** A 1-based page request (page below 1 is the first) as a window; none (the whole list) without a positive limit. */
export function pageWindow(page: PageRequest | undefined): PageWindow | undefined {
  if (page === undefined || page.limit <= 0) return undefined;
  return { limit: page.limit, offset: (Math.max(page.page, 1) - 1) * page.limit };
}
