/** The search options of Gitea's `GET /repos/search` (routers/api/v1/repo/repo.go `Search`, models/repo/search.go). */
import { CairnError } from '@cairn/rpc';

export type SortColumn = 'lower_name' | 'created' | 'updated' | 'size' | 'id' | 'num_stars' | 'num_forks';

export interface SearchOrder {
  column: SortColumn;
  direction: 'asc' | 'desc';
}

const SORT_COLUMNS: Readonly<Record<string, SortColumn>> = {
  alpha: 'lower_name',
  created: 'created',
  updated: 'updated',
  size: 'size',
  git_size: 'size',
  lfs_size: 'size',
  id: 'id',
  stars: 'num_stars',
  forks: 'num_forks',
};

/** Gitea's default is alphabetical; an order without a sort is ascending. */
export function searchOrder(sort: string, order: string): SearchOrder {
  if (sort === '') return { column: 'lower_name', direction: 'asc' };
  const direction = order === '' ? 'asc' : order;
  if (direction !== 'asc' && direction !== 'desc') {
    throw CairnError.invalid(`Invalid sort order: "${order}"`, { reason: 'sort_order_invalid' });
  }
  const column = SORT_COLUMNS[sort];
  if (column === undefined) throw CairnError.invalid(`Invalid sort mode: "${sort}"`, { reason: 'sort_invalid' });
  return { column, direction };
}

/** `mode` as filters: forks, sources (neither fork nor mirror), mirrors, or repositories the user was given. */
export interface ModeFilter {
  fork?: boolean;
  mirror?: boolean;
  /** Only repositories the `owner_id` user was given (not owns). */
  collaborative?: boolean;
}

export function modeFilter(mode: string): ModeFilter {
  switch (mode) {
    case '':
      return {};
    case 'fork':
      return { fork: true };
    case 'source':
      return { fork: false, mirror: false };
    case 'mirror':
      return { mirror: true };
    case 'collaborative':
      return { mirror: false, collaborative: true };
    default:
      throw CairnError.invalid(`Invalid search mode: "${mode}"`, { reason: 'search_mode_invalid' });
  }
}

/** The keyword's comma-separated parts, lower-cased (Gitea matches any of them). */
export function keywordParts(keyword: string): string[] {
  return keyword
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '');
}
