/**
 * Computed answers and the links Cairn hands out, end to end through the validating client (every `/api/v1` body
 * checked against Gitea's description): users' `starred_repos_count` as the caller may see it, repositories'
 * `licenses` (at creation and after pushes to the default branch) and `GET …/licenses`, `GET …/languages` from the
 * default branch's files, and the generated images behind `avatar_url`.
 */
import spdxFull from 'spdx-license-list/full';
import type { ApiResponse } from './support/client';
import { type Fixture, startFixture } from './support/fixture';
import { waitFor } from './support/instance';

jest.setTimeout(180_000);

interface ApiUser {
  id: number;
  login: string;
  avatar_url: string;
  starred_repos_count: number;
}
interface ApiRepo {
  id: number;
  name: string;
  licenses: string[];
  languages_url: string;
  default_branch: string;
}
interface Contents {
  sha: string;
}

const b64 = (text: string) => Buffer.from(text).toString('base64');

let f: Fixture;

beforeAll(async () => {
  // Auto-initialised creations run several git processes inside one gateway call: on a machine shared by many test
  // runs the default 5 s deadline is too tight for them (a 503 that says nothing about what this file checks).
  f = await startFixture('e2e_answers', ['alice', 'bob', 'carol'], { CAIRN__rpc__DEADLINE_MS: '30000' });
});

afterAll(async () => {
  await f?.stop();
});

function call<T>(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<ApiResponse<T>> {
  return f.api.request<T>(method, `/api/v1${path}`, { headers, body });
}

async function createRepo(owner: string, body: Record<string, unknown>): Promise<ApiRepo> {
  const res = await call<ApiRepo>('POST', '/user/repos', f.as(owner), body);
  expect([body.name, res.status]).toEqual([body.name, 201]);
  return res.body;
}

describe('starred_repos_count', () => {
  beforeAll(async () => {
    await createRepo('alice', { name: 'pub' });
    await createRepo('alice', { name: 'secret', private: true });
    // bob may read alice/secret; carol may not.
    expect((await call('PUT', '/repos/alice/secret/collaborators/bob', f.as('alice'), { permission: 'read' })).status).toBe(204);
    for (const repo of ['pub', 'secret']) expect((await call('PUT', `/user/starred/alice/${repo}`, f.as('alice'))).status).toBe(204);
    for (const repo of ['pub', 'secret']) expect((await call('PUT', `/user/starred/alice/${repo}`, f.as('bob'))).status).toBe(204);
  });

  const countOf = async (login: string, viewer: Record<string, string>) => (await call<ApiUser>('GET', `/users/${login}`, viewer)).body.starred_repos_count;
  const listed = async (login: string, viewer: Record<string, string>) =>
    Number((await call('GET', `/users/${login}/starred`, viewer)).headers.get('x-total-count'));

  it('counts every star for the user themself, private repositories too', async () => {
    expect(await countOf('alice', f.as('alice'))).toBe(2);
    expect((await call<ApiUser>('GET', '/user', f.as('alice'))).body.starred_repos_count).toBe(2);
    expect((await call<ApiUser>('GET', '/user', f.as('carol'))).body.starred_repos_count).toBe(0);
  });

  it("leaves private repositories out of another user's count, as their starred list does", async () => {
    for (const viewer of [f.as('bob'), f.as('carol'), f.root]) {
      expect(await countOf('alice', viewer)).toBe(1);
      expect(await listed('alice', viewer)).toBe(1);
    }
    expect(await countOf('bob', f.as('bob'))).toBe(2);
    expect(await countOf('bob', f.as('carol'))).toBe(1);
  });

  it('is counted in lists too (search, stargazers, admin list)', async () => {
    const search = await call<{ data: ApiUser[] }>('GET', '/users/search?q=alice', f.as('carol'));
    expect(search.body.data.map((user) => [user.login, user.starred_repos_count])).toEqual([['alice', 1]]);
    const stargazers = await call<ApiUser[]>('GET', '/repos/alice/secret/stargazers', f.as('bob'));
    expect(stargazers.body.map((user) => [user.login, user.starred_repos_count])).toEqual([
      ['alice', 1],
      ['bob', 2],
    ]);
    const admin = await call<ApiUser[]>('GET', '/admin/users?limit=50', f.root);
    const counts = Object.fromEntries(admin.body.map((user) => [user.login, user.starred_repos_count]));
    expect(counts).toMatchObject({ alice: 1, bob: 1, carol: 0 });
  });

  it('follows unstarring', async () => {
    expect((await call('DELETE', '/user/starred/alice/pub', f.as('bob'))).status).toBe(204);
    expect(await countOf('bob', f.as('bob'))).toBe(1);
    expect(await countOf('bob', f.as('carol'))).toBe(0);
  });
});

describe('licenses', () => {
  it('are detected in the licence file auto-init writes', async () => {
    const created = await createRepo('alice', { name: 'mit', auto_init: true, license: 'MIT' });
    expect(created.licenses).toEqual(['MIT']);
    expect((await call<ApiRepo>('GET', '/repos/alice/mit')).body.licenses).toEqual(['MIT']);
    expect((await call<string[]>('GET', '/repos/alice/mit/licenses')).body).toEqual(['MIT']);
  });

  it('are none for an empty repository or one without a licence file', async () => {
    await createRepo('alice', { name: 'bare' });
    expect((await call<string[]>('GET', '/repos/alice/bare/licenses')).body).toEqual([]);
    const readmeOnly = await createRepo('alice', { name: 'readme-only', auto_init: true });
    expect(readmeOnly.licenses).toEqual([]);
  });

  it('follow pushes to the default branch, and only those', async () => {
    await createRepo('alice', { name: 'relicensed', auto_init: true, license: 'MIT' });
    const licenses = async () => (await call<string[]>('GET', '/repos/alice/relicensed/licenses')).body;
    const { sha } = (await call<Contents>('GET', '/repos/alice/relicensed/contents/LICENSE')).body;
    // On another branch first: the default branch's licence stays.
    const apache = spdxFull['Apache-2.0'].licenseText;
    const elsewhere = await call('PUT', '/repos/alice/relicensed/contents/LICENSE', f.as('alice'), {
      content: b64(apache),
      sha,
      new_branch: 'apache',
    });
    expect(elsewhere.status).toBe(200);
    const onMain = await call('POST', '/repos/alice/relicensed/contents', f.as('alice'), {
      files: [
        { operation: 'delete', path: 'LICENSE', sha },
        { operation: 'create', path: 'LICENSE-APACHE', content: b64(apache) },
        { operation: 'create', path: 'COPYING', content: b64(spdxFull['GPL-3.0-or-later'].licenseText) },
      ],
    });
    expect(onMain.status).toBe(201);
    await waitFor('the new licences', async () => ((await licenses()).join() === 'Apache-2.0,GPL-3.0-only' ? true : undefined), 30_000);
    expect((await call<ApiRepo>('GET', '/repos/alice/relicensed')).body.licenses).toEqual(['Apache-2.0', 'GPL-3.0-only']);
  });

  it('are not shown to those who may not read the repository', async () => {
    await createRepo('alice', { name: 'hidden-licence', private: true, auto_init: true, license: 'MIT' });
    expect((await call('GET', '/repos/alice/hidden-licence/licenses', f.as('carol'))).status).toBe(404);
    expect((await call('GET', '/repos/alice/hidden-licence/licenses')).status).toBe(404);
  });
});

describe('languages', () => {
  it('answers {} for an empty repository and one holding only documentation', async () => {
    const empty = await createRepo('alice', { name: 'lang-empty' });
    expect(empty.languages_url).toMatch(/\/api\/v1\/repos\/alice\/lang-empty\/languages$/);
    expect((await call('GET', '/repos/alice/lang-empty/languages')).body).toEqual({});
    await createRepo('alice', { name: 'lang-docs', auto_init: true, license: 'MIT' });
    expect((await call('GET', '/repos/alice/lang-docs/languages')).body).toEqual({});
  });

  it("counts the default branch's code by language, leaving out vendored, dot and documentation files", async () => {
    await createRepo('alice', { name: 'code', auto_init: true });
    const go = 'package main\n\nfunc main() {}\n';
    const html = '<!doctype html><title>x</title>\n';
    const ts = 'export const answer = 42;\n';
    const written = await call('POST', '/repos/alice/code/contents', f.as('alice'), {
      files: [
        { operation: 'create', path: 'main.go', content: b64(go) },
        { operation: 'create', path: 'cmd/tool/tool.go', content: b64(go) },
        { operation: 'create', path: 'web/index.html', content: b64(html) },
        { operation: 'create', path: 'vendor/dep/dep.go', content: b64(go.repeat(50)) },
        { operation: 'create', path: 'docs/example.go', content: b64(go.repeat(20)) },
        { operation: 'create', path: '.github/workflows/check.ts', content: b64(ts) },
        { operation: 'create', path: 'config.yaml', content: b64('a: 1\n') },
      ],
    });
    expect(written.status).toBe(201);
    const expected = { Go: 2 * Buffer.byteLength(go), HTML: Buffer.byteLength(html) };
    expect((await call('GET', '/repos/alice/code/languages')).body).toEqual(expected);
    // Asked again (the answer is cached by commit) and by another reader: the same.
    expect((await call('GET', '/repos/alice/code/languages', f.as('carol'))).body).toEqual(expected);
    // A branch other than the default one does not count.
    expect(
      (await call('POST', '/repos/alice/code/contents/lib.ts', f.as('alice'), { content: b64(ts), new_branch: 'topic' })).status,
    ).toBe(201);
    expect((await call('GET', '/repos/alice/code/languages')).body).toEqual(expected);
  });

  it('is 404 for a private repository the caller may not read', async () => {
    await createRepo('alice', { name: 'lang-private', private: true, auto_init: true });
    expect((await call('GET', '/repos/alice/lang-private/languages', f.as('carol'))).status).toBe(404);
    expect((await call('GET', '/repos/alice/lang-private/languages')).status).toBe(404);
    expect((await call('GET', '/repos/alice/lang-private/languages', f.as('alice'))).status).toBe(200);
  });
});

describe('avatars', () => {
  const fetchAvatar = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });

  it("serves a generated PNG at every user's and organization's avatar_url", async () => {
    const alice = (await call<ApiUser>('GET', '/users/alice')).body;
    const bob = (await call<ApiUser>('GET', '/users/bob')).body;
    expect(alice.avatar_url).toMatch(/\/avatars\/[0-9a-f]{32}$/);
    const first = await fetchAvatar(alice.avatar_url);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const image = Buffer.from(await first.arrayBuffer());
    expect(image.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    // The same address always shows the same image; another user's differs. `?size=` is accepted and ignored.
    expect(Buffer.from(await (await fetchAvatar(`${alice.avatar_url}?size=80`)).arrayBuffer())).toEqual(image);
    expect(Buffer.from(await (await fetchAvatar(bob.avatar_url)).arrayBuffer())).not.toEqual(image);
    // Revalidation answers 304.
    const etag = first.headers.get('etag') ?? '';
    expect((await fetchAvatar(alice.avatar_url, { 'if-none-match': etag })).status).toBe(304);

    expect((await call('POST', '/orgs', f.as('alice'), { username: 'acme' })).status).toBe(201);
    const org = (await call<{ avatar_url: string }>('GET', '/orgs/acme')).body;
    const orgAvatar = await fetchAvatar(org.avatar_url);
    expect([orgAvatar.status, orgAvatar.headers.get('content-type')]).toEqual([200, 'image/png']);
  });

  it('is 404 for what is not an avatar hash', async () => {
    for (const hash of ['nothex', 'ABCDEF0123456789ABCDEF0123456789', '0123', '../etc/passwd']) {
      expect((await fetch(`${f.instance.httpUrl}/avatars/${hash}`)).status).toBe(404);
    }
  });
});
