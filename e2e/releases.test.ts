/**
 * Releases end to end, on the built supervisor, through the validating client (every body checked against Gitea's
 * description): creating on a new tag (made on the default branch or a given target) or on an existing plain tag,
 * the refusals (duplicate, unknown target, bad tag name), lists with their filters and paging headers, latest, get
 * and delete by id and by tag (the git tag stays), edits (publishing a draft makes its tag), a release's tag
 * refusing deletion, who sees drafts and private repositories' releases, and the archive links a release answers.
 */
import { type ApiResponse } from './support/client';
import { type Fixture, startFixture } from './support/fixture';

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
  });
});
