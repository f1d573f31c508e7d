import { parseGoQuery } from './go-query';
import { appendExposeHeaders, correctPageSize, linkHeader, listOptions } from './pagination';

const settings = { defaultPagingNum: 30, maxResponseItems: 50 };
const ROOT = 'http://localhost:3000/';
const PATH = '/api/v1/users/alice/tokens';

describe('listOptions', () => {
  const parse = (query: string) => listOptions(parseGoQuery(query), settings);

  it('defaults page to 1 and limit to DEFAULT_PAGING_NUM', () => {
    expect(parse('')).toEqual({ page: 1, limit: 30 });
  });
  it('reads page and limit', () => {
    expect(parse('page=3&limit=10')).toEqual({ page: 3, limit: 10 });
  });
  it('raises a page below 1 to 1', () => {
    expect(parse('page=0')).toEqual({ page: 1, limit: 30 });
    expect(parse('page=-4')).toEqual({ page: 1, limit: 30 });
  });
  it('brings a page whose offset would pass 32 bits back to the last one that fits (all past the end of any list)', () => {
    expect(parse('page=99999999999&limit=99999999999')).toEqual({ page: Math.floor(2_147_483_647 / 50), limit: 50 });
    const { page, limit } = parse('page=9223372036854775807');
    expect((page - 1) * limit).toBeLessThanOrEqual(2_147_483_647);
    expect(parse('page=1000&limit=50')).toEqual({ page: 1000, limit: 50 });
  });
  it('uses the default for a limit of 0 or less', () => {
    expect(parse('limit=0').limit).toBe(30);
    expect(parse('limit=-1').limit).toBe(30);
  });
  it('clamps a limit above MAX_RESPONSE_ITEMS', () => {
    expect(parse('limit=51').limit).toBe(50);
    expect(parse('limit=100000').limit).toBe(50);
    expect(listOptions(parseGoQuery('limit=80'), { defaultPagingNum: 10, maxResponseItems: 70 }).limit).toBe(70);
  });
  it('reads anything non-numeric as absent', () => {
    expect(parse('page=abc&limit=ten')).toEqual({ page: 1, limit: 30 });
    expect(parse('page=2.5&limit=1e1')).toEqual({ page: 1, limit: 30 });
    expect(parse('page=%2B2&limit=+5')).toEqual({ page: 2, limit: 30 });
  });
  it('takes the first of repeated values', () => {
    expect(parse('page=2&page=5')).toEqual({ page: 2, limit: 30 });
  });
});

describe('correctPageSize', () => {
  it('keeps sizes within bounds', () => {
    expect(correctPageSize(1, settings)).toBe(1);
    expect(correctPageSize(50, settings)).toBe(50);
  });
});

describe('linkHeader', () => {
  const link = (rawQuery: string, total: number, pageSize: number) =>
    linkHeader({ rootUrl: ROOT, path: PATH, rawQuery, total, pageSize });
  const url = (query: string) => `<${ROOT}api/v1/users/alice/tokens?${query}>`;

  it('links next and last from the first page', () => {
    expect(link('limit=2', 5, 2)).toBe(`${url('limit=2&page=2')}; rel="next",${url('limit=2&page=3')}; rel="last"`);
  });
  it('links next, last, first and prev from a middle page, in that order', () => {
    expect(link('limit=2&page=2', 5, 2)).toBe(
      `${url('limit=2&page=3')}; rel="next",${url('limit=2&page=3')}; rel="last",` +
        `${url('limit=2&page=1')}; rel="first",${url('limit=2&page=1')}; rel="prev"`,
    );
  });
  it('links first and prev from the last page', () => {
    expect(link('page=3&limit=2', 5, 2)).toBe(`${url('limit=2&page=1')}; rel="first",${url('limit=2&page=2')}; rel="prev"`);
  });
  it('sends no Link when everything fits on one page', () => {
    expect(link('', 2, 30)).toBeUndefined();
    expect(link('limit=2', 2, 2)).toBeUndefined();
    expect(link('', 0, 30)).toBeUndefined();
  });
  it('treats a page past the end as the last page', () => {
    expect(link('limit=2&page=10', 5, 2)).toBe(`${url('limit=2&page=1')}; rel="first",${url('limit=2&page=2')}; rel="prev"`);
  });
  it('keeps the other query parameters, re-encoded and sorted by key', () => {
    expect(link('page=1&state=open&b=x%20y&a=1+2&limit=1', 2, 1)).toBe(
      `${url('a=1+2&b=x+y&limit=1&page=2&state=open')}; rel="next",${url('a=1+2&b=x+y&limit=1&page=2&state=open')}; rel="last"`,
    );
  });
  it('adds page when the request had none and uses the corrected page size', () => {
    expect(link('limit=500', 120, 50)).toBe(`${url('limit=500&page=2')}; rel="next",${url('limit=500&page=3')}; rel="last"`);
  });
});

describe('appendExposeHeaders', () => {
  it('starts the list or appends with ", "', () => {
    expect(appendExposeHeaders(undefined, 'Link')).toBe('Link');
    expect(appendExposeHeaders('', 'Link')).toBe('Link');
    expect(appendExposeHeaders('Link', 'X-Total-Count')).toBe('Link, X-Total-Count');
    expect(appendExposeHeaders('A', 'B', 'C')).toBe('A, B, C');
  });
});
