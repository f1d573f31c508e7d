/**
 * Release assets in imports end to end (POST /repos/migrate, service gitea, releases chosen): a release of the same
 * instance with three assets — a binary larger than one stream chunk, a text file, and a second file of the same
 * name (Gitea lets a release hold two) — is imported; the copy's assets keep name, size, download count and creation
 * time, and their browser_download_url serves the source's bytes. An import without releases brings no assets.
 */
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

type Json = Record<string, unknown>;

describe('POST /repos/migrate with release assets from a gitea source (the same instance)', () => {
  let fixture: Fixture;
  let token = '';
  const uploads: { name: string; bytes: Buffer }[] = [
    { name: 'tools-linux.tar.gz', bytes: Buffer.from(Array.from({ length: 600_000 }, (_, i) => (i * 31 + (i >> 8)) % 256)) },
    { name: 'notes.txt', bytes: Buffer.from('first notes\n') },
    { name: 'notes.txt', bytes: Buffer.from('second file, same name\n') },
  ];
  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fixture.api.request<Json>(method, `/api/v1${path}`, { headers, body });
  const list = async (path: string, headers: Record<string, string>): Promise<Json[]> => {
    const answer = await call('GET', path, headers);
    expect(answer.status).toBe(200);
    return (answer.body as unknown as Json[] | null) ?? [];
  };
  const download = async (url: string, headers: Record<string, string>): Promise<Buffer> => {
    const answer = await fetch(url, { headers });
    expect(answer.status).toBe(200);
    return Buffer.from(await answer.arrayBuffer());
  };

  beforeAll(async () => {
    fixture = await startFixture('e2e_migrate_assets', ['alice', 'bob'], { CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true' });
    const alice = fixture.as('alice');
    const ok = async (method: string, path: string, headers: Record<string, string>, body: unknown, status: number) => {
      const answer = await call(method, path, headers, body);
      expect({ path, status: answer.status }).toEqual({ path, status });
      return answer.body as Json;
    };
    await ok('POST', '/user/repos', alice, { name: 'tools', auto_init: true, default_branch: 'main' }, 201);
    const release = await ok('POST', '/repos/alice/tools/releases', alice, { tag_name: 'v1.0', target_commitish: 'main', name: 'First', body: 'Notes' }, 201);
    for (const { name, bytes } of uploads) {
      const uploaded = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/alice/tools/releases/${release.id as number}/assets?name=${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: { ...alice, 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      expect(uploaded.status).toBe(201);
    }
    // One download at the source: the copy keeps the count the source shows.
    const [first] = await list(`/repos/alice/tools/releases/${release.id as number}/assets`, alice);
    await download(first.browser_download_url as string, alice);
    const made = await ok('POST', '/users/bob/tokens', fixture.as('bob'), { name: 'import', scopes: ['all'] }, 201);
    token = made.sha1 as string;
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  const assetsOf = async (owner: string, repo: string, headers: Record<string, string>): Promise<Json[]> => {
    const [release] = await list(`/repos/${owner}/${repo}/releases`, headers);
    return list(`/repos/${owner}/${repo}/releases/${release.id as number}/assets`, headers);
  };

  it('imports each asset with its name, size, download count and time, serving the same bytes', async () => {
    const bob = fixture.as('bob');
    const sourceBefore = await assetsOf('alice', 'tools', bob);
    const migrated = await call('POST', '/repos/migrate', bob, {
      clone_addr: `${fixture.instance.httpUrl}/alice/tools`,
      repo_name: 'tools',
      service: 'gitea',
      auth_token: token,
      releases: true,
    });
    expect([migrated.status, migrated.body]).toEqual([201, expect.objectContaining({ full_name: 'bob/tools' })]);

    const copy = await assetsOf('bob', 'tools', bob);
    const shape = (assets: Json[]) => assets.map(({ name, size, download_count, created_at }) => ({ name, size, download_count, created_at }));
    // Oldest first on both sides (Gitea orders a release's attachments by id).
    expect(shape(copy)).toEqual(shape(sourceBefore));
    expect(shape(copy).map((asset) => [asset.name, asset.size, asset.download_count])).toEqual([
      ['tools-linux.tar.gz', 600_000, 1],
      ['notes.txt', 12, 0],
      ['notes.txt', 23, 0],
    ]);
    for (const [i, asset] of copy.entries()) {
      // The copy's own attachment (ROOT_URL attachments/<uuid>), not a link to the source's.
      expect(asset.browser_download_url).toMatch(/\/attachments\/[0-9a-f-]{36}$/);
      expect(asset.browser_download_url).not.toEqual(sourceBefore[i].browser_download_url);
      expect((await download(asset.browser_download_url as string, bob)).equals(uploads[i].bytes)).toBe(true);
    }
    // The release answer lists them too.
    const [release] = await list('/repos/bob/tools/releases', bob);
    expect((release.assets as Json[]).map((asset) => asset.name)).toEqual(uploads.map((upload) => upload.name));
  });

  it('brings no assets when releases are not chosen', async () => {
    const bob = fixture.as('bob');
    const migrated = await call('POST', '/repos/migrate', bob, {
      clone_addr: `${fixture.instance.httpUrl}/alice/tools`,
      repo_name: 'git-only',
      service: 'gitea',
      auth_token: token,
      labels: true,
    });
    expect(migrated.status).toBe(201);
    expect(await list('/repos/bob/git-only/releases', bob)).toEqual([]);
  });
});
