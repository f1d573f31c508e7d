/**
 * The heatmap's time grid, as Gitea's `getUserHeatmapData` draws it: activity is counted per 15-minute bucket
 * (`created_unix / 900 * 900`; a quarter hour lets clients shift buckets into time zones such as UTC+5:30 or
 * UTC+12:45) over the last 366 + 7 days (a year, plus a week so the heatmap's first week is whole).
 */

export const BUCKET_SECONDS = 900;
export const HEATMAP_DAYS = 366 + 7;

const DAY_SECONDS = 86_400;

/** The start of the bucket holding `at`, in unix seconds. */
export function bucketOf(at: Date): number {
  const seconds = Math.floor(at.getTime() / 1000);
  return seconds - (((seconds % BUCKET_SECONDS) + BUCKET_SECONDS) % BUCKET_SECONDS);
}

/**
 * The first bucket a heatmap asked for at `now` shows: the one holding the instant HEATMAP_DAYS ago (Gitea
 * filters rows after that instant; whole buckets are kept, so that bucket is shown whole).
 */
export function heatmapStart(now: Date): number {
  return bucketOf(new Date(now.getTime() - HEATMAP_DAYS * DAY_SECONDS * 1000));
}
