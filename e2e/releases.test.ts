/**
 * Releases end to end, on the built supervisor, through the validating client (every body checked against Gitea's
 * description): creating on a new tag (made on the default branch or a given target) or on an existing plain tag,
 * the refusals (duplicate, unknown target, bad tag name), lists with their filters and paging headers, latest, get
 * and delete by id and by tag (the git tag stays), edits (publishing a draft makes its tag), a release's tag
 * refusing deletion, who sees drafts and private repositories' releases, the archive links a release answers, and
 * the cairn.release.* events that reached the bus (drafts publish none).
 */
import { Client } from 'pg';
import { type ApiResponse } from './support/client';
import { type Fixture, startFixture } from './support/fixture';
import { waitFor } from './support/instance';

jest.setTimeout(180_000);

interface ApiUser {
  id: number;
  login: string;
}
interface Release {
  id: number;
  tag_name: string;
  target_commitish: string;
  name: string;
  body: string;
  url: string;
  html_url: string;
  tarball_url: string;
  zipball_url: string;
  upload_url: string;
  draft: boolean;
  prerelease: boolean;
  created_at: string;
  published_at: string;
  author: ApiUser;
  assets: unknown[];
}
interface Tag {
  name: string;
  id: string;
  message: string;
  commit: { sha: string };
  zipball_url: string;
  tarball_url: string;
}
interface Branch {
  name: string;
  commit: { id: string };
}
interface FileResponse {
  commit: { sha: string };
}

describe('releases', () => {
  let fixture: Fixture;
  let alice: Record<string, string>;
  /** `<ROOT_URL>`, as the answers spell it. */
  let rootUrl: string;

  function call<T = unknown>(method: string, path: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> {
    return fixture.api.request<T>(method, `/api/v1${path}`, { headers, body });
  }
  const repoPath = (path: string) => `/repos/alice/app${path}`;
  const headOf = async (branch: string) => (await call<Branch>('GET', repoPath(`/branches/${branch}`), alice)).body.commit.id;
  const create = (body: Record<string, unknown>, headers = alice) => call<Release>('POST', repoPath('/releases'), headers, body);

  beforeAll(async () => {
    fixture = await startFixture('e2e_releases', ['alice', 'bob', 'carol', 'dave']);
    alice = fixture.as('alice');
    const made = await call<{ html_url: string }>('POST', '/user/repos', alice, { name: 'app', auto_init: true });
    expect(made.status).toBe(201);
    rootUrl = made.body.html_url.replace(/alice\/app$/, '');
    // A second branch whose head differs from main's.
    expect((await call('POST', repoPath('/branches'), alice, { new_branch_name: 'next' })).status).toBe(201);
    const content = Buffer.from('next\n').toString('base64');
    expect((await call<FileResponse>('POST', repoPath('/contents/next.txt'), alice, { content, branch: 'next' })).status).toBe(201);
    expect((await call('PUT', repoPath('/collaborators/bob'), alice, { permission: 'read' })).status).toBe(204);
    expect((await call('PUT', repoPath('/collaborators/carol'), alice, { permission: 'write' })).status).toBe(204);
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  describe('create', () => {
    it('creates the tag on the default branch and answers Gitea\'s Release', async () => {
      const created = await create({ tag_name: 'v1.0.0', name: 'One', body: 'First release' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        tag_name: 'v1.0.0',
        target_commitish: 'main',
        name: 'One',
        body: 'First release',
        draft: false,
        prerelease: false,
        url: `${rootUrl}api/v1/repos/alice/app/releases/${created.body.id}`,
        html_url: `${rootUrl}alice/app/releases/tag/v1.0.0`,
        tarball_url: `${rootUrl}alice/app/archive/v1.0.0.tar.gz`,
        zipball_url: `${rootUrl}alice/app/archive/v1.0.0.zip`,
        upload_url: `${rootUrl}api/v1/repos/alice/app/releases/${created.body.id}/assets`,
        author: { login: 'alice' },
        assets: [],
      });
      expect(created.body.published_at).toBe(created.body.created_at);
      const tag = await call<Tag>('GET', repoPath('/tags/v1.0.0'));
      expect(tag.status).toBe(200);
      expect(tag.body.commit.sha).toBe(await headOf('main'));

      const read = await call<Release>('GET', repoPath(`/releases/${created.body.id}`));
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);
    });

    it('creates the tag on a given target', async () => {
      const created = await create({ tag_name: 'v1.1.0-next', target_commitish: 'next' });
      expect(created.status).toBe(201);
      expect(created.body.target_commitish).toBe('next');
      expect((await call<Tag>('GET', repoPath('/tags/v1.1.0-next'))).body.commit.sha).toBe(await headOf('next'));
    });

    it('attaches to an existing plain tag, whose commit it keeps', async () => {
      const head = await headOf('next');
      expect((await call('POST', repoPath('/tags'), alice, { tag_name: 'plain-1', target: head })).status).toBe(201);
      // The plain tag is no release.
      expect((await call('GET', repoPath('/releases/tags/plain-1'))).status).toBe(404);
      const created = await create({ tag_name: 'plain-1', name: 'From a tag' });
      expect(created.status).toBe(201);
      expect((await call<Tag>('GET', repoPath('/tags/plain-1'))).body.commit.sha).toBe(head);
      expect((await call<Release>('GET', repoPath('/releases/tags/plain-1'))).body).toMatchObject({ id: created.body.id, name: 'From a tag' });
    });

    it('refuses a second release of a tag, an unknown target, a bad tag name and a reader', async () => {
      const again = await create({ tag_name: 'v1.0.0' });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ message: 'Release is has no Tag' });
      const nowhere = await create({ tag_name: 'v9', target_commitish: 'nowhere' });
      expect(nowhere.status).toBe(404);
      expect(nowhere.body).toMatchObject({ message: expect.stringContaining('target "nowhere" not found') });
      expect((await call('GET', repoPath('/tags/v9'))).status).toBe(404);
      for (const bad of ['bad..name', 'with space', '-leading', 'end.lock']) {
        expect({ bad, status: (await create({ tag_name: bad })).status }).toEqual({ bad, status: 422 });
      }
      expect((await create({ tag_name: 'v8' }, fixture.as('bob'))).status).toBe(403);
      expect((await create({ tag_name: 'v8' }, {})).status).toBe(401);
    });
  });

  describe('lists, drafts and latest', () => {
    let draft: Release;
    let pre: Release;
    let stable: Release;

    beforeAll(async () => {
      expect((await call('POST', '/user/repos', alice, { name: 'listed', auto_init: true })).status).toBe(201);
      expect((await call('PUT', '/repos/alice/listed/collaborators/bob', alice, { permission: 'read' })).status).toBe(204);
      expect((await call('PUT', '/repos/alice/listed/collaborators/carol', alice, { permission: 'write' })).status).toBe(204);
      const make = async (body: Record<string, unknown>) => {
        const made = await call<Release>('POST', '/repos/alice/listed/releases', alice, body);
        expect(made.status).toBe(201);
        return made.body;
      };
      stable = await make({ tag_name: 'v0.9' });
      draft = await make({ tag_name: 'v2.0-draft', draft: true });
      pre = await make({ tag_name: 'v2.0-rc1', prerelease: true });
    });

    const listed = async (query: string, headers?: Record<string, string>) => {
      const reply = await call<Release[]>('GET', `/repos/alice/listed/releases${query}`, headers);
      expect(reply.status).toBe(200);
      return { tags: reply.body.map((release) => release.tag_name), total: reply.headers.get('x-total-count'), link: reply.headers.get('link') };
    };

    it('lists newest first with paging headers; drafts only for writers', async () => {
      expect(await listed('', fixture.as('carol'))).toMatchObject({ tags: ['v2.0-rc1', 'v2.0-draft', 'v0.9'], total: '3' });
      expect(await listed('')).toMatchObject({ tags: ['v2.0-rc1', 'v0.9'], total: '2' });
      expect(await listed('', fixture.as('bob'))).toMatchObject({ tags: ['v2.0-rc1', 'v0.9'], total: '2' });
      const first = await listed('?limit=1', alice);
      expect(first).toMatchObject({ tags: ['v2.0-rc1'], total: '3' });
      expect(first.link).toContain('rel="next"');
      expect(first.link).toContain('page=2');
      expect(await listed('?limit=1&page=3', alice)).toMatchObject({ tags: ['v0.9'], total: '3' });
    });

    it('filters drafts and pre-releases', async () => {
      expect((await listed('?draft=true', alice)).tags).toEqual(['v2.0-draft']);
      expect((await listed('?draft=true', fixture.as('bob'))).tags).toEqual([]);
      expect((await listed('?draft=false', alice)).tags).toEqual(['v2.0-rc1', 'v0.9']);
      expect((await listed('?pre-release=true', alice)).tags).toEqual(['v2.0-rc1']);
      expect((await listed('?pre-release=false', alice)).tags).toEqual(['v2.0-draft', 'v0.9']);
    });

    it('hides a draft from anonymous callers and readers, not from writers; a draft has no tag', async () => {
      for (const headers of [undefined, fixture.as('bob')]) {
        expect((await call('GET', `/repos/alice/listed/releases/${draft.id}`, headers)).status).toBe(404);
        expect((await call('GET', '/repos/alice/listed/releases/tags/v2.0-draft', headers)).status).toBe(404);
      }
      expect((await call<Release>('GET', `/repos/alice/listed/releases/${draft.id}`, fixture.as('carol'))).body).toMatchObject({ draft: true });
      expect((await call('GET', '/repos/alice/listed/tags/v2.0-draft')).status).toBe(404);
    });

    it('answers the newest published release that is not a pre-release as latest', async () => {
      const latest = await call<Release>('GET', '/repos/alice/listed/releases/latest');
      expect(latest.status).toBe(200);
      expect(latest.body).toMatchObject({ id: stable.id, tag_name: 'v0.9' });
      expect(pre.prerelease).toBe(true);
      expect((await call('GET', '/repos/alice/app/releases/tags/v1.0.0')).status).toBe(200);
    });

    it('publishing a draft by an edit creates its tag; edits change only what they name', async () => {
      const edited = await call<Release>('PATCH', `/repos/alice/listed/releases/${draft.id}`, fixture.as('carol'), { body: 'Notes', name: '' });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ draft: true, body: 'Notes', tag_name: 'v2.0-draft' });
      const published = await call<Release>('PATCH', `/repos/alice/listed/releases/${draft.id}`, alice, { draft: false });
      expect(published.status).toBe(200);
      expect(published.body).toMatchObject({ draft: false, body: 'Notes' });
      expect((await call<Tag>('GET', '/repos/alice/listed/tags/v2.0-draft')).status).toBe(200);
      // Visible to everyone now, and the newest release.
      expect((await call<Release>('GET', '/repos/alice/listed/releases/latest')).body.id).toBe(draft.id);
      expect((await call('PATCH', `/repos/alice/listed/releases/${draft.id}`, fixture.as('bob'), { name: 'x' })).status).toBe(403);
      expect((await call('PATCH', '/repos/alice/listed/releases/999999', alice, { name: 'x' })).status).toBe(404);
      const taken = await call('PATCH', `/repos/alice/listed/releases/${draft.id}`, alice, { tag_name: 'v0.9' });
      expect(taken.status).toBe(409);
      expect(taken.body).toMatchObject({ message: 'release tag already exist [tag_name: v0.9]' });
    });
  });

  describe('deleting', () => {
    it('deletes by id and by tag, keeping the git tag; a second delete is 404', async () => {
      const byId = await create({ tag_name: 'del-1' });
      const byTag = await create({ tag_name: 'del/2' });
      expect((await call('DELETE', repoPath(`/releases/${byId.body.id}`), fixture.as('bob'))).status).toBe(403);
      expect((await call('DELETE', repoPath(`/releases/${byId.body.id}`), alice)).status).toBe(204);
      expect((await call('DELETE', repoPath(`/releases/${byId.body.id}`), alice)).status).toBe(404);
      expect((await call('GET', repoPath(`/releases/${byId.body.id}`))).status).toBe(404);
      expect((await call('GET', repoPath('/tags/del-1'))).status).toBe(200);

      expect((await call('DELETE', repoPath('/releases/tags/del/2'), alice)).status).toBe(204);
      expect((await call('DELETE', repoPath('/releases/tags/del/2'), alice)).status).toBe(404);
      expect((await call('GET', repoPath('/releases/tags/del/2'))).status).toBe(404);
      expect((await call('GET', repoPath('/tags/del/2'))).status).toBe(200);
      expect(byTag.body.html_url).toBe(`${rootUrl}alice/app/releases/tag/del/2`);
      // Plain again, the tags may go.
      expect((await call('DELETE', repoPath('/tags/del-1'), alice)).status).toBe(204);
    });

    it('refuses to delete a tag a release (a draft too) uses', async () => {
      const used = await call('DELETE', repoPath('/tags/v1.0.0'), alice);
      expect(used.status).toBe(409);
      expect(used.body).toMatchObject({ message: 'a tag attached to a release cannot be deleted directly' });
      expect((await call('POST', repoPath('/tags'), alice, { tag_name: 'plain-2' })).status).toBe(201);
      expect((await create({ tag_name: 'plain-2', draft: true })).status).toBe(201);
      expect((await call('DELETE', repoPath('/tags/plain-2'), alice)).status).toBe(409);
      expect((await call('GET', repoPath('/tags/plain-2'))).status).toBe(200);
    });
  });

  describe('private and archived repositories', () => {
    beforeAll(async () => {
      expect((await call('POST', '/user/repos', alice, { name: 'secret', auto_init: true, private: true })).status).toBe(201);
      expect((await call('POST', '/repos/alice/secret/releases', alice, { tag_name: 'v1' })).status).toBe(201);
      expect((await call('POST', '/user/repos', alice, { name: 'frozen', auto_init: true })).status).toBe(201);
      expect((await call('POST', '/repos/alice/frozen/releases', alice, { tag_name: 'v1' })).status).toBe(201);
      expect((await call('PATCH', '/repos/alice/frozen', alice, { archived: true })).status).toBe(200);
    });

    it("answers 404 for a private repository's releases to strangers and anonymous callers", async () => {
      for (const headers of [undefined, fixture.as('dave')]) {
        expect((await call('GET', '/repos/alice/secret/releases', headers)).status).toBe(404);
        expect((await call('GET', '/repos/alice/secret/releases/latest', headers)).status).toBe(404);
        expect((await call('GET', '/repos/alice/secret/releases/tags/v1', headers)).status).toBe(404);
      }
      expect((await call('GET', '/repos/alice/secret/releases/latest', alice)).status).toBe(200);
    });

    it('refuses changes to an archived repository, still answering reads', async () => {
      expect((await call('POST', '/repos/alice/frozen/releases', alice, { tag_name: 'v2' })).status).toBe(423);
      expect((await call('DELETE', '/repos/alice/frozen/releases/tags/v1', alice)).status).toBe(423);
      expect((await call('GET', '/repos/alice/frozen/releases/tags/v1')).status).toBe(200);
    });
  });

  describe('archive links', () => {
    /** The link as this instance serves it (the answers spell ROOT_URL's host). */
    const fetchLink = (link: string, headers?: Record<string, string>) => fetch(link.replace(rootUrl, `${fixture.instance.httpUrl}/`), { headers, redirect: 'manual' });

    it("answers a release's and a tag's zipball and tarball", async () => {
      const release = (await call<Release>('GET', repoPath('/releases/tags/v1.0.0'))).body;
      const tag = (await call<Tag>('GET', repoPath('/tags/v1.0.0'))).body;
      expect(tag.zipball_url).toBe(release.zipball_url);
      const zip = await fetchLink(release.zipball_url);
      expect(zip.status).toBe(200);
      expect(zip.headers.get('content-type')).toBe('application/zip');
      expect(zip.headers.get('content-disposition')).toContain('app-v1.0.0.zip');
      const zipBytes = Buffer.from(await zip.arrayBuffer());
      expect(zipBytes.subarray(0, 2).toString()).toBe('PK');
      const tarball = await fetchLink(release.tarball_url);
      expect(tarball.status).toBe(200);
      expect(tarball.headers.get('content-type')).toBe('application/x-gzip');
      expect([...Buffer.from(await tarball.arrayBuffer()).subarray(0, 2)]).toEqual([0x1f, 0x8b]);
      // A tag name with a slash.
      expect((await fetchLink((await call<Tag>('GET', repoPath('/tags/del/2'))).body.tarball_url)).status).toBe(200);
      expect((await fetchLink(`${rootUrl}alice/app/archive/no-such-tag.zip`)).status).toBe(404);
      expect((await fetchLink(`${rootUrl}alice/app/archive/v1.0.0.rar`)).status).toBe(400);
    });

    it("answers a private repository's archive to those who may read it only", async () => {
      const release = (await call<Release>('GET', '/repos/alice/secret/releases/tags/v1', alice)).body;
      expect((await fetchLink(release.zipball_url)).status).toBe(404);
      expect((await fetchLink(release.zipball_url, fixture.as('dave'))).status).toBe(404);
      expect((await fetchLink(release.zipball_url, { authorization: 'Basic ' + Buffer.from('alice:wrong').toString('base64') })).status).toBe(401);
      const allowed = await fetchLink(release.zipball_url, alice);
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('content-type')).toBe('application/zip');
      await allowed.arrayBuffer();
    });
  });

  describe('events', () => {
    interface Published {
      subject: string;
      tag: string;
      actorId: number;
    }

    /** The release events the bus holds (the instance's in-process bus, in its database), oldest first. */
    async function releaseEvents(): Promise<Published[]> {
      const client = new Client({ connectionString: fixture.database.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ subject: string; data: Buffer }>(
          "SELECT subject, data FROM cairn_bus.messages WHERE subject LIKE 'cairn.release.%' ORDER BY seq",
        );
        return rows.map((row) => {
          const event = JSON.parse(row.data.toString('utf8')) as { meta: { actorId: string }; release: { tagName: string } };
          return { subject: row.subject, tag: event.release.tagName, actorId: Number(event.meta.actorId) };
        });
      } finally {
        await client.end();
      }
    }

    it('published, updated and deleted releases reached the bus; drafts published nothing', async () => {
      const aliceId = (await call<ApiUser>('GET', '/user', alice)).body.id;
      const release = await create({ tag_name: 'evt-1' });
      expect((await call('PATCH', repoPath(`/releases/${release.body.id}`), alice, { name: 'Renamed' })).status).toBe(200);
      expect((await call('DELETE', repoPath(`/releases/${release.body.id}`), alice)).status).toBe(204);
      const events = await waitFor('the deletion on the bus', async () => {
        const seen = await releaseEvents();
        return seen.some((event) => event.subject === 'cairn.release.deleted' && event.tag === 'evt-1') ? seen : undefined;
      });
      expect(events.filter((event) => event.tag === 'evt-1')).toEqual([
        { subject: 'cairn.release.published', tag: 'evt-1', actorId: aliceId },
        { subject: 'cairn.release.updated', tag: 'evt-1', actorId: aliceId },
        { subject: 'cairn.release.deleted', tag: 'evt-1', actorId: aliceId },
      ]);
      // The draft published once, when it was published; plain-2 is a draft still.
      expect(events.filter((event) => event.tag === 'v2.0-draft').map((event) => event.subject)).toEqual(['cairn.release.published']);
      expect(events.filter((event) => event.tag === 'plain-2')).toEqual([]);
    });
  });
});
