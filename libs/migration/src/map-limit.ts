/**
 * Bounded concurrency for a downloader's per-item requests (each issue's and comment's reactions): Gitea's
 * downloaders ask them one after another, which leaves a long import one chain of round trips.
 */

/**
 * Requests in flight at once for one page's items. Small: enough to keep a source busy while each answer travels,
 * few enough for GitHub's guidance against many concurrent requests (its secondary rate limits, which
 * source-http waits out like any other limit).
 */
export const ITEM_REQUESTS_AT_ONCE = 4;

/**
 * `map(item, index)` over `items`, at most `limit` at once, the results in the items' order. A failure stops new
 * items from starting; once those already started have settled (so nothing is left running behind the caller's
 * back), the first failure is thrown.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, map: (item: T, index: number) => Promise<R>): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`mapLimit: limit must be a positive integer, not ${limit}`);
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        results[index] = await map(items[index], index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}
