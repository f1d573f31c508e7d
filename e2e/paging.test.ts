/**
 * Absurd paging on every kind of list answers as Gitea does (routers/api/v1/utils/page.go: a page below 1 is 1, a
 * limit outside 1..MAX_RESPONSE_ITEMS is the default or the maximum, text reads as 0), and a page past the end is an
 * empty list: never a 5xx.
 */
import { startFixture, type Fixture } from './support/fixture';

jest.setTimeout(120_000);

describe('paging', () => {
  let fixture: Fixture;

  beforeAll(async () => {
    fixture = await startFixture('e2e_paging', ['alice']);
    const alice = fixture.as('alice');
    expect((await fixture.api.request('POST', '/api/v1/user/repos', { headers: alice, body: { name: 'paged', auto_init: true } })).status).toBe(201);
    expect((await fixture.api.request('POST', '/api/v1/repos/alice/paged/issues', { headers: alice, body: { title: 'one' } })).status).toBe(201);
    // Something on every list, so the first page is not empty.
    const made = [
      await fixture.api.request('POST', '/api/v1/repos/alice/paged/labels', { headers: alice, body: { name: 'bug', color: '#ee0701' } }),
      await fixture.api.request('POST', '/api/v1/orgs', { headers: alice, body: { username: 'paged-org' } }),
      await fixture.api.request('POST', '/api/v1/users/alice/tokens', { headers: alice, body: { name: 'paged', scopes: ['read:user'] } }),
    ];
    expect(made.map((res) => res.status)).toEqual([201, 201, 201]);
    expect((await fixture.api.request('PUT', '/api/v1/user/starred/alice/paged', { headers: alice })).status).toBe(204);
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  // (An issue's comments are not paged in Gitea: `since` and `before` only.)
  const LISTS = [
    '/repos/search',
    '/users/search',
    '/user/repos',
    '/users/alice/repos',
    '/admin/users',
    '/orgs',
    '/repos/alice/paged/issues',
    '/repos/alice/paged/labels',
    '/repos/alice/paged/branches',
    '/repos/alice/paged/commits',
    '/repos/alice/paged/stargazers',
    '/repos/issues/search',
    '/user/starred',
    '/users/alice/tokens',
  ];

  /** What names each item of a list (sign-in times in embedded users change from call to call). */
  const itemsOf = (body: unknown) => {
    const items = (Array.isArray(body) ? body : (body as { data: unknown[] }).data) as Array<Record<string, unknown>>;
    return items.map((item) => item.id ?? item.sha ?? item.name);
  };

  /** alice, or root for the administrators' lists. */
  const callerOf = (path: string) => (path.startsWith('/admin/') ? fixture.root : fixture.as('alice'));

  it.each(LISTS)('%s: a page far past the end is an empty list', async (path) => {
    const res = await fixture.api.request<unknown[]>('GET', `/api/v1${path}?limit=99999999999&page=99999999999`, { headers: callerOf(path) });
    expect([path, res.status]).toEqual([path, 200]);
    expect(itemsOf(res.body)).toEqual([]);
  });

  it.each(LISTS)('%s: negative, zero and non-numeric paging reads as the first page of the default size', async (path) => {
    const plain = await fixture.api.request<unknown[]>('GET', `/api/v1${path}`, { headers: callerOf(path) });
    expect([path, plain.status]).toEqual([path, 200]);
    expect(itemsOf(plain.body).length).toBeGreaterThan(0);
    for (const query of ['limit=-5&page=-3', 'limit=0&page=0', 'limit=abc&page=xyz', 'page=-9223372036854775808']) {
      const res = await fixture.api.request<unknown[]>('GET', `/api/v1${path}?${query}`, { headers: callerOf(path) });
      expect([path, query, res.status, itemsOf(res.body)]).toEqual([path, query, 200, itemsOf(plain.body)]);
    }
  });
});
