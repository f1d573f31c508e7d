/**
 * The git-facing repository API end to end, on the built supervisor, through the validating client (every body
 * checked against Gitea's description): contents (read, create, update, delete, several files; author, committer
 * and dates honoured), raw files and archives, branches, branch protections, tags, commits and commit statuses —
 * with their pagination headers, their access rules, and bad input (ref names with `..` or control characters,
 * path traversal, bad base64, oversized bodies) answered 4xx with nothing written.
 */
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { apiClient, type ApiClient, type ApiResponse } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, type Instance } from './support/instance';

jest.setTimeout(180_000);

interface Contents {
  name: string;
  path: string;
  sha: string;
  type: string;
  size: number;
  encoding: string | null;
  content: string | null;
  last_commit_sha: string;
  download_url: string | null;
  html_url: string | null;
  url: string;
}
interface FileCommit {
  sha: string;
  message: string;
  author: { name: string; email: string; date: string };
  committer: { name: string; email: string; date: string };
  parents: Array<{ sha: string }>;
}
interface FileResponse {
  content: Contents | null;
  commit: FileCommit;
}
interface Commit {
  sha: string;
  commit: { message: string; author: { name: string; email: string; date: string }; committer: { name: string; email: string; date: string } };
  files: Array<{ filename: string; status: string }> | null;
  stats: { total: number; additions: number; deletions: number } | null;
  parents: Array<{ sha: string }>;
}
interface Branch {
  name: string;
  commit: { id: string; message: string };
  protected: boolean;
  user_can_push: boolean;
  effective_branch_protection_name: string;
}

/** The body limit this instance runs with (Gitea's default, 10 MiB): big enough for a file over 4 MiB. */
const MAX_BODY = 10 * 1024 * 1024;

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');

describe('the git-facing repository API', () => {
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance;
  let api: ApiClient;

  const root = basicAuth('root', 'root-pass-123');
  const password = 'user-pass-123';
  const as = (name: string) => basicAuth(name, password);
  const alice = as('alice');

  function call<T = unknown>(method: string, path: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> {
    return api.request<T>(method, `/api/v1${path}`, { headers, body });
  }
  const repoPath = (path: string) => `/repos/alice/code${path}`;
  const headOf = async (branch = 'main') => (await call<Branch>('GET', repoPath(`/branches/${branch}`), alice)).body.commit.id;

  beforeAll(async () => {
    database = await createTestDatabase('e2e_repo_git_api');
    workDir = makeWorkDir();
    const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0', CAIRN__server__MAX_BODY_SIZE: String(MAX_BODY) });
    instance = await startInstance(workDir, env);
    api = apiClient(instance.httpUrl);
    expect((await runCli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-pass-123', '--email', 'root@example.com', '--admin'], env)).code).toBe(0);
    for (const username of ['alice', 'bob', 'carol']) {
      const made = await call('POST', '/admin/users', root, { username, email: `${username}@example.com`, password, must_change_password: false, full_name: username === 'alice' ? 'Alice Anders' : '' });
      expect(made.status).toBe(201);
    }
    expect((await call('POST', '/user/repos', alice, { name: 'code', auto_init: true })).status).toBe(201);
    expect((await call('POST', '/user/repos', alice, { name: 'empty' })).status).toBe(201);
    expect((await call('PUT', repoPath('/collaborators/bob'), alice, { permission: 'read' })).status).toBe(204);
  });

  afterAll(async () => {
    if (workDir !== undefined) await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
  });

  describe('contents', () => {
    it('reads the root listing and a file at the default branch or a ref', async () => {
      const list = await call<Contents[]>('GET', repoPath('/contents'));
      expect(list.status).toBe(200);
      const readme = list.body.find((entry) => entry.name === 'README.md');
      expect(readme).toMatchObject({ type: 'file', content: null, encoding: null });
      const file = await call<Contents>('GET', repoPath('/contents/README.md?ref=main'));
      expect(file.status).toBe(200);
      expect(file.body).toMatchObject({ name: 'README.md', path: 'README.md', type: 'file', encoding: 'base64' });
      expect(Buffer.from(file.body.content ?? '', 'base64').toString()).toContain('code');
      expect(file.body.download_url).toMatch(/\/alice\/code\/raw\/branch\/main\/README\.md$/);
      expect(file.body.html_url).toMatch(/\/alice\/code\/src\/branch\/main\/README\.md$/);
      expect(file.body.last_commit_sha).toBe(await headOf());
      expect((await call('GET', repoPath('/contents/missing.md'))).status).toBe(404);
      expect((await call('GET', repoPath('/contents/README.md?ref=no-such-ref'))).status).toBe(404);
    });

    it('creates a file with the given author, committer and dates', async () => {
      const created = await call<FileResponse>('POST', repoPath('/contents/docs/guide.md'), alice, {
        content: b64('# Guide\n'),
        message: 'Add the guide',
        author: { name: 'Ann Author', email: 'ann@example.org' },
        committer: { name: 'Cid Committer', email: 'cid@example.org' },
        dates: { author: '2021-02-03T04:05:06+02:00', committer: '2022-03-04T05:06:07Z' },
      });
      expect(created.status).toBe(201);
      expect(created.body.content).toMatchObject({ path: 'docs/guide.md', type: 'file', content: b64('# Guide\n') });
      expect(created.body.commit).toMatchObject({
        message: 'Add the guide\n',
        author: { name: 'Ann Author', email: 'ann@example.org', date: '2021-02-03T02:05:06Z' },
        committer: { name: 'Cid Committer', email: 'cid@example.org', date: '2022-03-04T05:06:07Z' },
      });
      // The commit keeps the author's time zone.
      const commit = await call<Commit>('GET', repoPath(`/git/commits/${created.body.commit.sha}`));
      expect(commit.body.commit.author.date).toBe('2021-02-03T04:05:06+02:00');
      expect(commit.body.commit.committer.date).toBe('2022-03-04T05:06:07Z');
    });

    it('commits as the doer by default, with Gitea\'s default message', async () => {
      const created = await call<FileResponse>('POST', repoPath('/contents/notes/a.txt'), alice, { content: b64('a\n') });
      expect(created.status).toBe(201);
      expect(created.body.commit.message.trim()).toBe('Add notes/a.txt');
      expect(created.body.commit.author).toMatchObject({ name: 'Alice Anders', email: 'alice@example.com' });
      expect(created.body.commit.committer).toMatchObject({ name: 'Alice Anders', email: 'alice@example.com' });
    });

    it('refuses to create a file that exists, and updates it only with its current sha', async () => {
      const exists = await call<{ message: string }>('POST', repoPath('/contents/notes/a.txt'), alice, { content: b64('again\n') });
      expect(exists.status).toBe(422);
      expect(exists.body.message).toBe('repository file already exists [path: notes/a.txt]');

      const current = await call<Contents>('GET', repoPath('/contents/notes/a.txt'));
      const stale = await call('PUT', repoPath('/contents/notes/a.txt'), alice, { content: b64('b\n'), sha: '0'.repeat(40) });
      expect(stale.status).toBe(422);
      const updated = await call<FileResponse>('PUT', repoPath('/contents/notes/a.txt'), alice, { content: b64('b\n'), sha: current.body.sha });
      expect(updated.status).toBe(200);
      expect(updated.body.commit.message.trim()).toBe('Update notes/a.txt');
      expect(updated.body.content?.content).toBe(b64('b\n'));
      // Without a sha an update creates the file.
      const createdByPut = await call<FileResponse>('PUT', repoPath('/contents/notes/b.txt'), alice, { content: b64('new\n') });
      expect(createdByPut.status).toBe(201);
      // Moving a file with from_path.
      const moved = await call<FileResponse>('PUT', repoPath('/contents/notes/c.txt'), alice, {
        content: b64('moved\n'),
        sha: createdByPut.body.content?.sha,
        from_path: 'notes/b.txt',
      });
      expect(moved.status).toBe(200);
      expect((await call('GET', repoPath('/contents/notes/b.txt'))).status).toBe(404);
    });

    it('deletes a file with its sha, and answers 404 for one that is not there', async () => {
      const file = await call<Contents>('GET', repoPath('/contents/notes/c.txt'));
      const deleted = await call<FileResponse>('DELETE', repoPath('/contents/notes/c.txt'), alice, { sha: file.body.sha });
      expect(deleted.status).toBe(200);
      expect(deleted.body.content).toBeNull();
      expect(deleted.body.commit.message.trim()).toBe('Delete notes/c.txt');
      const again = await call('DELETE', repoPath('/contents/notes/c.txt'), alice, { sha: file.body.sha });
      expect(again.status).toBe(404);
      const noSha = await call<{ message: string }>('DELETE', repoPath('/contents/notes/a.txt'), alice, {});
      expect(noSha.status).toBe(422);
      expect(noSha.body.message).toBe('[SHA]: Required');
    });

    it('changes several files in one commit, on a new branch when asked', async () => {
      const a = await call<Contents>('GET', repoPath('/contents/notes/a.txt'));
      const changed = await call<{ files: Array<Contents | null>; commit: FileCommit }>('POST', repoPath('/contents'), alice, {
        new_branch: 'feature/multi',
        files: [
          { operation: 'create', path: 'multi/one.txt', content: b64('1\n') },
          { operation: 'update', path: 'notes/a.txt', content: b64('changed\n'), sha: a.body.sha },
          { operation: 'delete', path: 'docs/guide.md', sha: (await call<Contents>('GET', repoPath('/contents/docs/guide.md'))).body.sha },
        ],
      });
      expect(changed.status).toBe(201);
      expect(changed.body.files.map((file) => file?.path ?? null)).toEqual(['multi/one.txt', 'notes/a.txt', null]);
      expect(changed.body.commit.message).toBe('Add multi/one.txt\nUpdate notes/a.txt\nDelete docs/guide.md\n');
      expect(await headOf('feature/multi')).toBe(changed.body.commit.sha);
      // main did not move.
      expect((await call('GET', repoPath('/contents/multi/one.txt'))).status).toBe(404);
      const existingBranch = await call('POST', repoPath('/contents'), alice, { new_branch: 'feature/multi', files: [{ operation: 'create', path: 'x.txt', content: b64('x') }] });
      expect(existingBranch.status).toBe(422);
      const noFiles = await call<{ message: string }>('POST', repoPath('/contents'), alice, { files: [] });
      expect(noFiles.body.message).toBe('[Files]: Required');
      const badOperation = await call<{ message: string }>('POST', repoPath('/contents'), alice, { files: [{ operation: 'chmod', path: 'x' }] });
      expect(badOperation.body.message).toBe('[Operation]: In');
    });

    it('refuses path traversal, .git paths, bad base64, bad branch names and oversized bodies, writing nothing', async () => {
      const before = await headOf();
      const refusals: Array<[string, string, unknown]> = [
        ['POST', '/contents/..%2Fescape.txt', { content: b64('x') }],
        ['POST', '/contents/a%2F..%2F..%2Fescape.txt', { content: b64('x') }],
        ['POST', '/contents/.git%2Fconfig', { content: b64('x') }],
        ['POST', '/contents/ctl%01name.txt', { content: b64('x') }],
        ['POST', '', { files: [{ operation: 'create', path: '../up.txt', content: b64('x') }] }],
        ['POST', '', { files: [{ operation: 'create', path: '/abs.txt', content: b64('x') }] }],
        ['POST', '/contents/ok.txt', { content: 'not base64!' }],
        ['POST', '/contents/ok.txt', { content: b64('x'), branch: 'main..other' }],
        ['POST', '/contents/ok.txt', { content: b64('x'), new_branch: 'bad\u0001name' }],
        ['POST', '/contents/ok.txt', { content: b64('x'), new_branch: 'has space' }],
      ];
      // All 422: Gitea's binding (GitRefName), its bad-base64 and invalid-path errors. Where Gitea cleans a path that
      // climbs out or starts with `/` and writes it, Cairn refuses it (a departure, docs/api.md).
      for (const [method, suffix, body] of refusals) {
        const res = await call<{ message: string }>(method, repoPath(suffix === '' ? '/contents' : suffix), alice, body);
        expect([suffix, res.status]).toEqual([suffix, 422]);
      }
      const badBase64 = await call<{ message: string }>('POST', repoPath('/contents/ok.txt'), alice, { content: 'abc$' });
      expect(badBase64).toMatchObject({ status: 422, body: { message: 'illegal base64 data at input byte 3' } });
      const badBranch = await call<{ message: string }>('POST', repoPath('/contents/ok.txt'), alice, { content: b64('x'), new_branch: 'a..b' });
      expect(badBranch).toMatchObject({ status: 422, body: { message: '[NewBranchName]: GitRefName' } });
      // The gateway answers 413 as soon as the limit is passed and closes the connection, so a client still sending
      // may see the connection reset before it reads the answer: either way the body is refused.
      const oversized = await call('POST', repoPath('/contents/big.bin'), alice, { content: b64(Buffer.alloc(MAX_BODY)) })
        .then((response) => response.status)
        .catch((error: Error) => (/EPIPE|ECONNRESET|other side closed/.test(String((error.cause as Error | undefined)?.message ?? error.message)) ? 413 : error));
      expect(oversized).toBe(413);
      expect(await headOf()).toBe(before);
      expect((await call<Branch[]>('GET', repoPath('/branches?limit=50'))).body.map((branch) => branch.name)).not.toContain('a..b');
      // Reads of such paths are refused too: 422 where Gitea cleans the path and answers 404 (a departure, docs/api.md).
      for (const path of ['/contents/..%2F..%2Fetc%2Fpasswd', '/raw/..%2F..%2Fetc%2Fpasswd', '/contents/.git%2FHEAD']) {
        const res = await call('GET', repoPath(path));
        expect([path, res.status]).toEqual([path, 422]);
      }
    });

    it("writes and reads back a file larger than gRPC's default 4 MiB message", async () => {
      // Not all one byte, so a mix-up anywhere on the way shows.
      const big = Buffer.alloc(6 * 1024 * 1024, 'cairn-big-file-');
      const created = await call<FileResponse>('POST', repoPath('/contents/big/six.bin'), alice, { content: b64(big), new_branch: 'big-file' });
      expect(created.status).toBe(201);
      expect(created.body.content).toMatchObject({ path: 'big/six.bin', size: big.length });
      const read = await call<Contents>('GET', repoPath('/contents/big/six.bin?ref=big-file'));
      expect(read.status).toBe(200);
      expect(read.body.size).toBe(big.length);
      expect(Buffer.from(read.body.content ?? '', 'base64').equals(big)).toBe(true);
    });

    it('needs code write access, refuses archived repositories, and protected branches as their rule says', async () => {
      const bob = await call<{ message: string }>('POST', repoPath('/contents/bob.txt'), as('bob'), { content: b64('b') });
      expect(bob).toMatchObject({ status: 403, body: { message: 'user should have a permission to write to this branch' } });
      expect((await call('POST', repoPath('/contents/anon.txt'), undefined, { content: b64('a') })).status).toBe(401);

      expect((await call('POST', repoPath('/branch_protections'), alice, { rule_name: 'main', require_signed_commits: true, enable_push: true })).status).toBe(201);
      const signed = await call<{ message: string }>('POST', repoPath('/contents/signed.txt'), alice, { content: b64('s') });
      expect(signed).toMatchObject({ status: 403, body: { message: 'user cannot commit to repo [user: alice]' } });
      // The rule covers commits on its branch, not one that starts a new branch from it (Gitea's ChangeRepoFiles).
      expect((await call('POST', repoPath('/contents/signed.txt'), alice, { content: b64('s'), new_branch: 'from-signed' })).status).toBe(201);
      expect((await call('PATCH', repoPath('/branch_protections/main'), alice, { require_signed_commits: false, protected_file_patterns: 'secret/*.txt' })).status).toBe(200);
      const protectedFile = await call<{ message: string }>('POST', repoPath('/contents/secret/key.txt'), alice, { content: b64('k') });
      expect(protectedFile).toMatchObject({ status: 403, body: { message: 'path is protected and can not be changed [path: secret/key.txt]' } });
      expect((await call('DELETE', repoPath('/branch_protections/main'), alice)).status).toBe(204);

      expect((await call('POST', '/user/repos', alice, { name: 'frozen', auto_init: true })).status).toBe(201);
      expect((await call('PATCH', '/repos/alice/frozen', alice, { archived: true })).status).toBe(200);
      const archived = await call<{ message: string }>('POST', '/repos/alice/frozen/contents/x.txt', alice, { content: b64('x') });
      expect(archived).toMatchObject({ status: 423, body: { message: 'alice/frozen is archived' } });
      expect((await call('GET', '/repos/alice/frozen/contents/README.md')).status).toBe(200);
    });
  });

  describe('raw files and archives', () => {
    it('serves a raw file by ?ref=, by a ref prefix, and on the default branch, with Gitea\'s headers', async () => {
      const byDefault = await fetch(`${instance.httpUrl}/api/v1${repoPath('/raw/notes/a.txt')}`);
      expect(byDefault.status).toBe(200);
      expect(await byDefault.text()).toBe('b\n');
      expect(byDefault.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(byDefault.headers.get('x-gitea-object-type')).toBe('file');
      expect(byDefault.headers.get('content-disposition')).toBe('inline; filename="a.txt"');
      expect(byDefault.headers.get('etag')).toMatch(/^"[0-9a-f]{40}"$/);
      expect(byDefault.headers.get('cache-control')).toContain('public');

      const byPrefix = await fetch(`${instance.httpUrl}/api/v1${repoPath('/raw/feature/multi/notes/a.txt')}`);
      expect(await byPrefix.text()).toBe('changed\n');
      const byQuery = await fetch(`${instance.httpUrl}/api/v1${repoPath('/raw/notes/a.txt?ref=feature/multi')}`);
      expect(await byQuery.text()).toBe('changed\n');
      const sha = await headOf('feature/multi');
      expect(await (await fetch(`${instance.httpUrl}/api/v1${repoPath(`/raw/${sha}/multi/one.txt`)}`)).text()).toBe('1\n');
      expect((await fetch(`${instance.httpUrl}/api/v1${repoPath('/media/notes/a.txt')}`)).status).toBe(200);

      expect((await call('GET', repoPath('/raw/nope.txt'))).status).toBe(404);
      expect((await call('GET', repoPath('/raw/notes'))).status).toBe(404);
      expect((await call('GET', repoPath('/raw/notes/a.txt?ref=nope'))).status).toBe(404);
      expect((await call('GET', '/repos/alice/empty/raw/README.md')).status).toBe(404);
    });

    it('streams archives as zip, tar.gz and bundle, and refuses unknown formats and refs', async () => {
      const zip = await fetch(`${instance.httpUrl}/api/v1${repoPath('/archive/main.zip')}`);
      expect(zip.status).toBe(200);
      expect(zip.headers.get('content-disposition')).toBe('attachment; filename="code-main.zip"');
      expect(Buffer.from(await zip.arrayBuffer()).subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
      const tar = await fetch(`${instance.httpUrl}/api/v1${repoPath('/archive/feature/multi.tar.gz')}`);
      expect(tar.headers.get('content-disposition')).toBe('attachment; filename="code-feature-multi.tar.gz"');
      expect(Buffer.from(await tar.arrayBuffer()).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
      const bundle = await fetch(`${instance.httpUrl}/api/v1${repoPath('/archive/main.bundle')}`);
      expect(Buffer.from(await bundle.arrayBuffer()).subarray(0, 15).toString()).toBe('# v2 git bundle');
      const unknownFormat = await call<{ message: string }>('GET', repoPath('/archive/main.rar'));
      expect(unknownFormat).toMatchObject({ status: 400, body: { message: 'unknown format: main.rar' } });
      const unknownRef = await call<{ message: string }>('GET', repoPath('/archive/nope.zip'));
      expect(unknownRef).toMatchObject({ status: 404, body: { message: 'unrecognized repository reference: nope' } });
    });
  });

  describe('branches', () => {
    it('creates branches from a branch, a tag or a commit, and refuses existing, missing and bad names', async () => {
      const main = await headOf();
      const made = await call<Branch>('POST', repoPath('/branches'), alice, { new_branch_name: 'release/1.x', old_ref_name: main });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ name: 'release/1.x', commit: { id: main }, protected: false, user_can_push: true });
      expect((await call('POST', repoPath('/branches'), alice, { new_branch_name: 'from-default' })).status).toBe(201);
      expect((await call('POST', repoPath('/branches'), alice, { new_branch_name: 'from-old', old_branch_name: 'release/1.x' })).status).toBe(201);
      const exists = await call<{ message: string }>('POST', repoPath('/branches'), alice, { new_branch_name: 'release/1.x' });
      expect(exists).toMatchObject({ status: 409, body: { message: 'The branch already exists.' } });
      const missing = await call<{ message: string }>('POST', repoPath('/branches'), alice, { new_branch_name: 'x', old_branch_name: 'no-such-branch' });
      expect(missing).toMatchObject({ status: 404, body: { message: 'The old branch does not exist' } });
      for (const name of ['a..b', 'ctl\u0007x', 'x.lock', '-x', 'x y', 'x~1']) {
        const bad = await call<{ message: string }>('POST', repoPath('/branches'), alice, { new_branch_name: name });
        expect([name, bad.status, bad.body.message]).toEqual([name, 422, '[BranchName]: GitRefName']);
      }
      expect((await call('POST', repoPath('/branches'), as('bob'), { new_branch_name: 'bobs' })).status).toBe(403);
      expect((await call('POST', '/repos/alice/empty/branches', alice, { new_branch_name: 'x' })).status).toBe(404);
    });

    it('lists branches a page at a time with Link and X-Total-Count, and null for an empty repository', async () => {
      const all = await call<Branch[]>('GET', repoPath('/branches?limit=50'));
      const total = Number(all.headers.get('x-total-count'));
      expect(total).toBe(all.body.length);
      expect(all.body.map((branch) => branch.name)).toEqual(expect.arrayContaining(['main', 'feature/multi', 'release/1.x', 'from-default', 'from-old']));
      const page = await call<Branch[]>('GET', repoPath('/branches?limit=2&page=2'));
      expect(page.body).toHaveLength(2);
      expect(page.headers.get('x-total-count')).toBe(String(total));
      const link = page.headers.get('link') ?? '';
      expect(link).toContain('rel="next"');
      expect(link).toContain('rel="prev"');
      expect(link).toContain('limit=2&page=3');
      const empty = await call('GET', '/repos/alice/empty/branches');
      expect(empty).toMatchObject({ status: 200, body: null });
      expect(empty.headers.get('x-total-count')).toBe('0');
    });

    it('gets a branch whose name holds a slash, with its protection', async () => {
      expect((await call('POST', repoPath('/branch_protections'), alice, { rule_name: 'release/*', enable_push: true, required_approvals: 2 })).status).toBe(201);
      const branch = await call<Branch & { required_approvals: number }>('GET', repoPath('/branches/release/1.x'), alice);
      expect(branch.status).toBe(200);
      expect(branch.body).toMatchObject({ name: 'release/1.x', protected: true, effective_branch_protection_name: 'release/*', required_approvals: 2 });
      expect((await call('GET', repoPath('/branches/no/such'))).status).toBe(404);
    });

    it('deletes branches, but not the default or a protected one', async () => {
      expect((await call('DELETE', repoPath('/branches/from-default'), alice)).status).toBe(204);
      expect((await call('DELETE', repoPath('/branches/from-default'), alice)).status).toBe(404);
      const defaultBranch = await call<{ message: string }>('DELETE', repoPath('/branches/main'), alice);
      expect(defaultBranch.status).toBe(403);
      const protectedBranch = await call<{ message: string }>('DELETE', repoPath('/branches/release/1.x'), alice);
      expect(protectedBranch).toMatchObject({ status: 403, body: { message: 'branch protected' } });
      expect((await call('DELETE', repoPath('/branches/from-old'), as('bob'))).status).toBe(403);
    });

    it('renames a branch, refusing existing targets', async () => {
      expect((await call('PATCH', repoPath('/branches/from-old'), alice, { name: 'renamed/branch' })).status).toBe(204);
      expect((await call('GET', repoPath('/branches/renamed/branch'))).status).toBe(200);
      expect((await call('GET', repoPath('/branches/from-old'))).status).toBe(404);
      const taken = await call<{ message: string }>('PATCH', repoPath('/branches/renamed/branch'), alice, { name: 'main' });
      expect(taken.status).toBe(422);
      expect((await call('PATCH', repoPath('/branches/renamed/branch'), alice, { name: 'bad..name' })).status).toBe(422);
      expect((await call('PATCH', repoPath('/branches/nope'), alice, { name: 'other' })).status).toBe(404);
      // A rule named after the branch moves with it; only repository admins may rename such a branch.
      expect((await call('POST', repoPath('/branch_protections'), alice, { rule_name: 'renamed/branch', enable_push: true })).status).toBe(201);
      expect((await call('PUT', repoPath('/collaborators/carol'), alice, { permission: 'write' })).status).toBe(204);
      const byWriter = await call<{ message: string }>('PATCH', repoPath('/branches/renamed/branch'), as('carol'), { name: 'by-carol' });
      expect(byWriter).toMatchObject({ status: 403, body: { message: 'User must be a repo or site admin to rename default or protected branches.' } });
      expect((await call('PATCH', repoPath('/branches/renamed/branch'), alice, { name: 'renamed/again' })).status).toBe(204);
      expect((await call('GET', repoPath('/branch_protections/renamed%2Fagain'), alice)).status).toBe(200);
      expect((await call('GET', repoPath('/branch_protections/renamed%2Fbranch'), alice)).status).toBe(404);
      expect((await call('DELETE', repoPath('/branch_protections/renamed%2Fagain'), alice)).status).toBe(204);
      expect((await call('DELETE', repoPath('/collaborators/carol'), alice)).status).toBe(204);
    });
  });

  describe('branch protections', () => {
    it('creates, lists, reads, edits, reorders and deletes rules (repository admins only)', async () => {
      const created = await call<{ rule_name: string; enable_push: boolean; priority: number; id?: number }>('POST', repoPath('/branch_protections'), alice, {
        rule_name: 'hotfix/**',
        enable_push: true,
        status_check_contexts: ['ci'],
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ rule_name: 'hotfix/**', enable_push: true });
      const duplicate = await call<{ message: string }>('POST', repoPath('/branch_protections'), alice, { rule_name: 'hotfix/**' });
      expect(duplicate).toMatchObject({ status: 403, body: { message: 'Branch protection already exist' } });
      const unnamed = await call<{ message: string }>('POST', repoPath('/branch_protections'), alice, {});
      expect(unnamed).toMatchObject({ status: 400, body: { message: 'both rule_name and branch_name are empty' } });

      const list = await call<Array<{ rule_name: string }>>('GET', repoPath('/branch_protections'), alice);
      expect(list.body.map((rule) => rule.rule_name).sort()).toEqual(['hotfix/**', 'release/*']);
      const edited = await call<{ required_approvals: number; enable_push: boolean; status_check_contexts: string[] }>(
        'PATCH',
        repoPath('/branch_protections/hotfix%2F**'),
        alice,
        { required_approvals: 1 },
      );
      expect(edited.status).toBe(200);
      // Only the given field changed.
      expect(edited.body).toMatchObject({ required_approvals: 1, enable_push: true, status_check_contexts: ['ci'] });
      expect((await call('GET', repoPath('/branch_protections/hotfix%2F**'), alice)).status).toBe(200);
      expect((await call('POST', repoPath('/branch_protections/priority'), alice, { ids: [] })).status).toBe(204);

      expect((await call('GET', repoPath('/branch_protections'), as('bob'))).status).toBe(403);
      expect((await call('GET', repoPath('/branch_protections'))).status).toBe(401);
      expect((await call('DELETE', repoPath('/branch_protections/hotfix%2F**'), alice)).status).toBe(204);
      expect((await call('GET', repoPath('/branch_protections/hotfix%2F**'), alice)).status).toBe(404);
      expect((await call('DELETE', repoPath('/branch_protections/release%2F*'), alice)).status).toBe(204);
    });
  });

  describe('tags', () => {
    it('creates lightweight and annotated tags, lists, reads and deletes them', async () => {
      const head = await headOf();
      const light = await call<{ name: string; id: string; message: string; commit: { sha: string } }>('POST', repoPath('/tags'), alice, { tag_name: 'v1.0.0' });
      expect(light.status).toBe(201);
      expect(light.body).toMatchObject({ name: 'v1.0.0', id: head, commit: { sha: head } });
      const annotated = await call<{ id: string; message: string; commit: { sha: string }; zipball_url: string }>('POST', repoPath('/tags'), alice, {
        tag_name: 'release/v2',
        message: 'Second release',
        target: 'feature/multi',
      });
      expect(annotated.status).toBe(201);
      expect(annotated.body.message).toBe('Second release');
      expect(annotated.body.id).not.toBe(annotated.body.commit.sha);
      expect(annotated.body.commit.sha).toBe(await headOf('feature/multi'));
      expect(annotated.body.zipball_url).toMatch(/\/alice\/code\/archive\/release\/v2\.zip$/);

      expect((await call<{ message: string }>('POST', repoPath('/tags'), alice, { tag_name: 'v1.0.0' })).status).toBe(409);
      const badTarget = await call<{ message: string }>('POST', repoPath('/tags'), alice, { tag_name: 'v9', target: 'no-such-branch' });
      expect(badTarget.status).toBe(404);
      expect(badTarget.body.message).toMatch(/^target not found: /);
      expect((await call<{ message: string }>('POST', repoPath('/tags'), alice, { tag_name: 'bad..tag' })).body.message).toBe('[TagName]: GitRefName');
      expect((await call('POST', repoPath('/tags'), as('bob'), { tag_name: 'bobs' })).status).toBe(403);

      const list = await call<Array<{ name: string }>>('GET', repoPath('/tags?limit=1'));
      expect(list.body).toHaveLength(1);
      expect(list.headers.get('x-total-count')).toBe('2');
      const got = await call<{ name: string }>('GET', repoPath('/tags/release/v2'));
      expect(got.body.name).toBe('release/v2');
      const missing = await call<{ message: string }>('GET', repoPath('/tags/nope'));
      expect(missing).toMatchObject({ status: 404, body: { message: "tag doesn't exist: nope" } });
      expect((await call('DELETE', repoPath('/tags/release/v2'), alice)).status).toBe(204);
      expect((await call('DELETE', repoPath('/tags/release/v2'), alice)).status).toBe(404);
    });
  });

  describe('commits', () => {
    it('lists history a page at a time with Gitea\'s headers, by path, with or without stats and files', async () => {
      const all = await call<Commit[]>('GET', repoPath('/commits?sha=feature/multi&limit=50'));
      const total = Number(all.headers.get('x-total-count'));
      expect(total).toBe(all.body.length);
      expect(total).toBeGreaterThan(3);
      const page = await call<Commit[]>('GET', repoPath('/commits?sha=feature/multi&limit=2&page=1'));
      expect(page.body).toHaveLength(2);
      expect(page.body[0].sha).toBe(await headOf('feature/multi'));
      expect(page.headers.get('x-hasmore')).toBe('true');
      expect(page.headers.get('x-total')).toBe(String(total));
      expect(page.headers.get('x-pagecount')).toBe(String(Math.ceil(total / 2)));
      expect(page.headers.get('link')).toContain('rel="next"');
      expect(page.headers.get('access-control-expose-headers')).toContain('X-HasMore');
      expect(page.body[0].files).toEqual([
        { filename: 'docs/guide.md', status: 'removed' },
        { filename: 'multi/one.txt', status: 'added' },
        { filename: 'notes/a.txt', status: 'modified' },
      ]);
      expect(page.body[0].stats).toMatchObject({ additions: 2 });

      const bare = await call<Commit[]>('GET', repoPath('/commits?sha=feature/multi&limit=1&stat=false&files=false&verification=false'));
      expect(bare.body[0]).toMatchObject({ stats: null, files: null, commit: { verification: null } });

      const byPath = await call<Commit[]>('GET', repoPath('/commits?path=notes/a.txt'));
      expect(byPath.body.map((commit) => commit.commit.message.trim())).toEqual(['Update notes/a.txt', 'Add notes/a.txt']);
      expect((await call('GET', repoPath('/commits?path=never/there.txt'))).status).toBe(404);
      expect((await call('GET', repoPath('/commits?sha=no-such-ref'))).status).toBe(404);
      expect((await call('GET', '/repos/alice/empty/commits')).status).toBe(409);
    });

    it('reads one commit, refusing bad revisions', async () => {
      const head = await headOf();
      const commit = await call<Commit>('GET', repoPath(`/git/commits/${head}`));
      expect(commit.status).toBe(200);
      expect(commit.body.sha).toBe(head);
      expect((await call('GET', repoPath('/git/commits/main'))).status).toBe(200);
      const missing = await call<{ message: string }>('GET', repoPath(`/git/commits/${'f'.repeat(40)}`));
      expect(missing).toMatchObject({ status: 404, body: { message: `commit doesn't exist: ${'f'.repeat(40)}` } });
      const range = await call<{ message: string }>('GET', repoPath('/git/commits/main..feature'));
      expect(range).toMatchObject({ status: 422, body: { message: 'no valid ref or sha: main..feature' } });
    });

    it("shows the users owning the author's and committer's e-mails, shaped for the caller", async () => {
      interface CommitUser {
        id: number;
        login: string;
        email: string;
      }
      type WithUsers = Commit & { author: CommitUser | null; committer: CommitUser | null };
      // A repository of its own, so the other tests' histories stay as they are.
      expect((await call('POST', '/user/repos', alice, { name: 'authored', auto_init: true })).status).toBe(201);
      const written = await call<FileResponse>('POST', '/repos/alice/authored/contents/by-bob.txt', alice, {
        content: b64('bob wrote this\n'),
        author: { name: 'Robert', email: 'Bob@Example.com' },
        committer: { name: 'Cid Committer', email: 'cid@example.org' },
      });
      expect(written.status).toBe(201);
      const sha = written.body.commit.sha;

      const one = await call<WithUsers>('GET', `/repos/alice/authored/git/commits/${sha}`, alice);
      expect(one.status).toBe(200);
      expect(one.body.commit.author.email).toBe('Bob@Example.com');
      expect(one.body.author).toMatchObject({ login: 'bob', email: 'bob@example.com' });
      // No account owns the committer's address.
      expect(one.body.committer).toBeNull();

      // An anonymous caller sees the same user with the placeholder e-mail.
      const anonymous = await call<WithUsers>('GET', `/repos/alice/authored/git/commits/${sha}`);
      expect(anonymous.body.author).toMatchObject({ login: 'bob' });
      expect(anonymous.body.author?.email).not.toBe('bob@example.com');

      // In a list, each commit has its own: the initial commit is alice's (the doer) as author and committer.
      const list = await call<WithUsers[]>('GET', '/repos/alice/authored/commits?stat=false&files=false', alice);
      expect(list.status).toBe(200);
      expect(list.body.map((commit) => [commit.author?.login ?? null, commit.committer?.login ?? null])).toEqual([
        ['bob', null],
        ['alice', 'alice'],
      ]);
    });
  });

  describe('commit statuses', () => {
    it('records statuses for a ref, lists them and combines the latest per context', async () => {
      const sha = await headOf('feature/multi');
      const created = await call<{ id: number; status: string; context: string; creator: { login: string } }>('POST', repoPath(`/statuses/${sha}`), alice, {
        state: 'pending',
        context: 'ci/build',
        target_url: 'https://ci.example.com/1',
        description: 'building',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ status: 'pending', context: 'ci/build', creator: { login: 'alice' } });
      // The later status of a context wins in the combined state; a short sha names the same commit.
      expect((await call('POST', repoPath(`/statuses/${sha}`), alice, { state: 'success', context: 'ci/build' })).status).toBe(201);
      expect((await call('POST', repoPath(`/statuses/${sha.slice(0, 10)}`), alice, { state: 'failure', context: 'ci/lint' })).status).toBe(201);

      const list = await call<Array<{ status: string }>>('GET', repoPath(`/statuses/${sha}?limit=2`));
      expect(list.headers.get('x-total-count')).toBe('3');
      expect(list.body).toHaveLength(2);
      const byRef = await call<Array<{ status: string }>>('GET', repoPath('/commits/feature/multi/statuses'));
      expect(byRef.body).toHaveLength(3);
      const combined = await call<{ state: string; sha: string; total_count: number; repository: { full_name: string } }>('GET', repoPath('/commits/feature/multi/status'));
      expect(combined.body).toMatchObject({ state: 'failure', sha, total_count: 2, repository: { full_name: 'alice/code' } });
      const none = await call<{ state: string; total_count: number }>('GET', repoPath('/commits/main/status'));
      expect(none.body).toMatchObject({ state: 'pending', total_count: 0 });

      expect((await call('POST', repoPath(`/statuses/${sha}`), as('bob'), { state: 'success', context: 'x' })).status).toBe(403);
      expect((await call('GET', repoPath('/commits/no-such-ref/status'))).status).toBe(404);
    });
  });
});
