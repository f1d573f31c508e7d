/**
 * Gitea's list paging: `page`/`limit` parsing (routers/api/v1/utils/page.go, services/convert/utils.go) and
 * the `Link` and `X-Total-Count` headers (services/context/api.go, modules/paginator), reproduced exactly
 * because SDKs page through lists by following them.
 */
import { type GoValues, encodeGoQuery, goFormInt, parseGoQuery } from './go-query';

export interface PagingSettings {
  /** `[api] DEFAULT_PAGING_NUM` (30). */
  defaultPagingNum: number;
  /** `[api] MAX_RESPONSE_ITEMS` (50). */
  maxResponseItems: number;
}

export interface ListOptions {
  /** 1-based. */
  page: number;
  limit: number;
}

/** `convert.ToCorrectPageSize`: ≤0 → the default, above the maximum → the maximum. */
export function correctPageSize(size: number, settings: PagingSettings): number {
  if (size <= 0) return settings.defaultPagingNum;
  return Math.min(size, settings.maxResponseItems);
}

/** The largest 32-bit signed integer: pages and offsets travel as int32 (`cairn.common.v1.PageRequest`, SQL). */
const INT32_MAX = 2_147_483_647;

/**
 * `utils.GetListOptions`: `page` below 1 is 1; `limit` corrected; anything non-numeric reads as 0. A page so far out
 * that its offset would not fit 32 bits is brought back to the last page that does: every such page is past the end of
 * any list, so the answer (an empty list) is the same, where passing it on would overflow the services' int32.
 */
export function listOptions(query: GoValues, settings: PagingSettings): ListOptions {
  const limit = correctPageSize(goFormInt(query, 'limit'), settings);
  return {
    page: Math.min(Math.max(goFormInt(query, 'page'), 1), Math.floor(INT32_MAX / limit)),
    limit,
  };
}

/** modules/paginator, the part the Link header uses. */
class Paginator {
  private readonly pagingNum: number;
  private readonly current: number;

  constructor(
    private readonly total: number,
    pagingNum: number,
    current: number,
  ) {
    this.pagingNum = pagingNum <= 0 ? 1 : pagingNum;
    this.current = Math.min(current <= 0 ? 1 : current, this.totalPages());
  }

  totalPages(): number {
    return this.total <= 0 ? 1 : Math.ceil(this.total / this.pagingNum);
  }
  hasNext(): boolean {
    return this.total > this.current * this.pagingNum;
  }
  next(): number {
    return this.hasNext() ? this.current + 1 : this.current;
  }
  isLast(): boolean {
    if (this.total <= 0) return true;
    return this.total > (this.current - 1) * this.pagingNum && !this.hasNext();
  }
  isFirst(): boolean {
    return this.current === 1;
  }
  hasPrevious(): boolean {
    return this.current > 1;
  }
  previous(): number {
    return this.hasPrevious() ? this.current - 1 : this.current;
  }
}

export interface LinkHeaderInput {
  /** ROOT_URL, ending with "/". */
  rootUrl: string;
  /** The request's path as sent (escaped), starting with "/", e.g. `/api/v1/users/alice/tokens`. */
  path: string;
  /** The request's raw query string, without "?". */
  rawQuery: string;
  /** Number of items in the whole list. */
  total: number;
  /** The page size actually used (after `correctPageSize`). */
  pageSize: number;
}

/**
 * `ctx.SetLinkHeader(total, pageSize)`'s value: `<url>; rel="next"`, `rel="last"`, `rel="first"`,
 * `rel="prev"` — those that apply, in that order, joined by "," — or undefined when there is nothing to
 * link (a single page). Each URL keeps the request's query with `page` replaced, re-encoded sorted.
 */
export function linkHeader(input: LinkHeaderInput): string | undefined {
  const query = parseGoQuery(input.rawQuery);
  const paginator = new Paginator(input.total, input.pageSize, goFormInt(query, 'page'));
  const link = (page: number, rel: string): string => {
    const values: GoValues = new Map(query);
    values.set('page', [String(page)]);
    return `<${input.rootUrl}${input.path.slice(1)}?${encodeGoQuery(values)}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (paginator.hasNext()) links.push(link(paginator.next(), 'next'));
  if (!paginator.isLast()) links.push(link(paginator.totalPages(), 'last'));
  if (!paginator.isFirst()) links.push(link(1, 'first'));
  if (paginator.hasPrevious()) links.push(link(paginator.previous(), 'prev'));
  return links.length === 0 ? undefined : links.join(',');
}

export const LINK_HEADER = 'Link';
export const TOTAL_COUNT_HEADER = 'X-Total-Count';
export const EXPOSE_HEADERS_HEADER = 'Access-Control-Expose-Headers';

/** `AppendAccessControlExposeHeaders`: names appended to the current value, joined by ", ". */
export function appendExposeHeaders(current: string | undefined, ...names: string[]): string {
  const added = names.join(', ');
  return current === undefined || current === '' ? added : `${current}, ${added}`;
}
