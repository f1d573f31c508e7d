import { BUCKET_SECONDS, HEATMAP_DAYS, bucketOf, heatmapStart } from './heatmap-buckets';

const at = (iso: string) => new Date(iso);
const unix = (iso: string) => Date.parse(iso) / 1000;

describe('bucketOf', () => {
  it.each([
    ['2024-03-10T12:00:00Z', '2024-03-10T12:00:00Z'],
    ['2024-03-10T12:00:00.999Z', '2024-03-10T12:00:00Z'],
    ['2024-03-10T12:14:59Z', '2024-03-10T12:00:00Z'],
    ['2024-03-10T12:15:00Z', '2024-03-10T12:15:00Z'],
    ['2024-03-10T12:59:59Z', '2024-03-10T12:45:00Z'],
    ['1969-12-31T23:59:59Z', '1969-12-31T23:45:00Z'],
  ])('puts %s in the quarter hour starting %s', (instant, start) => {
    expect(bucketOf(at(instant))).toBe(unix(start));
  });

  it('is Gitea’s created_unix / 900 * 900', () => {
    const seconds = 1_700_000_123;
    expect(bucketOf(new Date(seconds * 1000))).toBe(Math.floor(seconds / 900) * 900);
    expect(bucketOf(new Date(seconds * 1000)) % BUCKET_SECONDS).toBe(0);
  });
});

describe('heatmapStart', () => {
  it('is the bucket holding the instant 366 + 7 days before now', () => {
    expect(HEATMAP_DAYS).toBe(373);
    const now = at('2025-01-01T10:20:30Z');
    expect(heatmapStart(now)).toBe(unix('2023-12-25T10:15:00Z'));
  });
});
