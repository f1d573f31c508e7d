import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadGiteaApi, readStatusAllowances, type StatusAllowance } from './gitea-api';

const ROOT = path.join(__dirname, '..', '..', '..');
const DESCRIPTION = path.join(ROOT, 'services', 'gateway', 'api', 'gitea-api-v1.json');
const api = loadGiteaApi(DESCRIPTION);

const user = {
  id: 1, login: 'alice', login_name: '', source_id: 0, full_name: '', email: 'alice@example.com',
  avatar_url: 'http://localhost/avatars/1', html_url: 'http://localhost/alice', language: '', is_admin: false,
  last_login: '0001-01-01T00:00:00Z', created: '2026-01-01T00:00:00Z', restricted: false, active: true,
  prohibit_login: false, location: '', website: '', description: '', visibility: 'public',
  followers_count: 0, following_count: 0, starred_repos_count: 0, username: 'alice',
};

describe('Gitea API validator', () => {
  it('accepts a body that matches the operation and status', () => {
    expect(api.responseErrors({ method: 'GET', path: '/api/v1/users/alice', status: 200, body: user })).toEqual([]);
    expect(api.responseErrors({ method: 'get', path: '/api/v1/version?x=1', status: 200, body: { version: '1' } })).toEqual([]);
  });

  it('fails a renamed, missing or mistyped field', () => {
    const { login, ...renamed } = user;
    expect(api.responseErrors({ method: 'GET', path: '/users/alice', status: 200, body: { ...renamed, name: login } })).toEqual([
      "/ must have required property 'login'",
    ]);
    expect(api.responseErrors({ method: 'GET', path: '/users/alice', status: 200, body: { ...user, id: '1' } })).toEqual(['/id must be integer']);
    expect(api.responseErrors({ method: 'GET', path: '/users/alice', status: 200, body: { ...user, created: 'yesterday' } })).toEqual([
      '/created must match format "date-time"',
    ]);
  });

  it('accepts an empty e-mail address, as Gitea sends for organizations and hidden addresses, and no other non-address', () => {
    expect(api.responseErrors({ method: 'GET', path: '/users/acme', status: 200, body: { ...user, email: '' } })).toEqual([]);
    expect(api.responseErrors({ method: 'GET', path: '/users/alice', status: 200, body: { ...user, email: 'not an address' } })).toEqual([
      '/email must match format "email"',
    ]);
  });

  it('validates list responses item by item', () => {
    const token = { id: 1, name: 't', sha1: '', token_last_eight: 'abcdefgh', scopes: ['all'] };
    expect(api.responseErrors({ method: 'GET', path: '/users/alice/tokens', status: 200, body: [token] })).toEqual([]);
    expect(api.responseErrors({ method: 'GET', path: '/users/alice/tokens', status: 200, body: [{ ...token, scopes: 'all' }] })).toEqual([
      '/0/scopes must be array',
    ]);
  });

  it("follows Gitea's handler where its description is wrong: /user/settings answers one object", () => {
    const settings = {
      full_name: '', website: '', description: '', location: '', language: '', theme: '', diff_view_style: '', hide_email: false, hide_activity: false,
    };
    expect(api.responseErrors({ method: 'GET', path: '/user/settings', status: 200, body: settings })).toEqual([]);
    expect(api.responseErrors({ method: 'PATCH', path: '/user/settings', status: 200, body: [settings] })).toEqual(['/ must be object']);
  });

  it('refuses undocumented success statuses and unknown paths', () => {
    expect(api.responseErrors({ method: 'GET', path: '/version', status: 201, body: {} })[0]).toMatch(/does not answer 201/);
    expect(api.responseErrors({ method: 'GET', path: '/nope/x/y/z/w/v', status: 200, body: {} })[0]).toMatch(/no path/);
  });

  it("accepts null where Gitea sends it, and the 201 Gitea's tag creation answers", () => {
    const dir = {
      name: 'd', path: 'd', sha: 'a', last_commit_sha: 'b', last_author_date: '2026-01-01T00:00:00Z', last_committer_date: '2026-01-01T00:00:00Z',
      last_commit_message: 'm', type: 'dir', size: 0, encoding: null, content: null, target: null, url: 'u', html_url: 'h', git_url: 'g',
      download_url: null, submodule_git_url: null, _links: { self: 'u', git: 'g', html: 'h' },
    };
    expect(api.responseErrors({ method: 'GET', path: '/repos/o/r/contents', status: 200, body: [dir] })).toEqual([]);
    expect(api.responseErrors({ method: 'GET', path: '/repos/o/r/contents', status: 200, body: [{ ...dir, name: null }] })).toHaveLength(1);
    // A file path spans segments, as Gitea's `*` routes read it.
    expect(api.responseErrors({ method: 'GET', path: '/repos/o/r/contents/a/b/c.md', status: 200, body: { ...dir, type: 'file' } })).toEqual([]);
    const tag = { name: 'v1', message: '', id: 'a', commit: { sha: 'a', url: 'u', created: '2026-01-01T00:00:00Z' }, zipball_url: 'z', tarball_url: 't' };
    expect(api.responseErrors({ method: 'POST', path: '/repos/o/r/tags', status: 201, body: tag })).toEqual([]);
  });

  it("lets a repository leave out what Gitea omits when empty, answers topic search as Gitea's handler does, and a pending transfer 201", () => {
    const repoErrors = api.definitionErrors('Repository', {});
    for (const omitted of ['parent', 'internal_tracker', 'external_tracker', 'external_wiki', 'repo_transfer']) {
      expect(repoErrors.some((error) => error.includes(`'${omitted}'`))).toBe(false);
    }
    expect(repoErrors.some((error) => error.includes("'permissions'"))).toBe(true);
    const topic = { id: 1, topic_name: 'go', repo_count: 2, created: '2026-01-01T00:00:00Z', updated: '2026-01-01T00:00:00Z' };
    expect(api.responseErrors({ method: 'GET', path: '/topics/search?q=g', status: 200, body: { topics: [topic] } })).toEqual([]);
    expect(api.responseErrors({ method: 'GET', path: '/topics/search', status: 200, body: [topic] })).toEqual(['/ must be object']);
    expect(api.responseErrors({ method: 'POST', path: '/repos/o/r/transfer', status: 201, body: {} })).toContain("/ must have required property 'id'");
  });

  it('requires a message in error bodies', () => {
    expect(api.responseErrors({ method: 'GET', path: '/users/x', status: 404, body: { message: 'not found', url: 'u' } })).toEqual([]);
    expect(api.responseErrors({ method: 'GET', path: '/users/x', status: 404, body: { error: 'x' } })).toHaveLength(1);
  });

  it('fails an error status the operation does not list, unless an allowance names it', () => {
    const teapot = { method: 'GET', path: '/api/v1/repos/o/r', status: 418, body: { message: 'short and stout' } };
    expect(api.responseErrors(teapot)).toEqual([
      "Gitea's GET /repos/{owner}/{repo} does not answer 418 (nor do docs/api.md's allowed statuses list it)",
    ]);
    const allow = (allowance: Partial<StatusAllowance>) =>
      loadGiteaApi(DESCRIPTION, [{ method: 'GET', path: '/repos/{owner}/{repo}', statuses: [418], reason: 'r', ...allowance }]);
    expect(allow({}).responseErrors(teapot)).toEqual([]);
    expect(allow({ method: '*', path: '/repos/*' }).responseErrors(teapot)).toEqual([]);
    expect(allow({ method: '*', path: '*' }).responseErrors(teapot)).toEqual([]);
    expect(allow({ method: 'DELETE' }).responseErrors(teapot)).toHaveLength(1);
    expect(allow({ statuses: [419] }).responseErrors(teapot)).toHaveLength(1);
    expect(allow({ path: '/users/*' }).responseErrors(teapot)).toHaveLength(1);
    expect(allow({ message: 'short' }).responseErrors(teapot)).toEqual([]);
    expect(allow({ message: 'stout' }).responseErrors(teapot)).toEqual([]);
    expect(allow({ message: 'tall' }).responseErrors(teapot)).toHaveLength(1);
    expect(allow({ message: 'short' }).responseErrors({ ...teapot, body: undefined })).toHaveLength(1);
    // Documented error statuses pass as before; paths and methods Gitea does not route have no operation to ask.
    expect(api.responseErrors({ method: 'GET', path: '/users/x', status: 404, body: { message: 'm' } })).toEqual([]);
    expect(api.responseErrors({ method: 'GET', path: '/no/such/route/here/at/all', status: 404, body: { message: 'm' } })).toEqual([]);
    expect(() => allow({ path: '/repos/{o}/{r}' })).toThrow(/does not have/);
    expect(() => allow({ method: 'PUT' })).toThrow(/does not have/);
    expect(() => allow({ path: '/nowhere/*' })).toThrow(/does not have/);
  });

  describe('readStatusAllowances', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'cairn-allowances-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const read = (table: string) => {
      const file = path.join(dir, 'api.md');
      writeFileSync(file, `# API\n\n<!-- statuses:begin -->\n| operation | statuses | message | why |\n|---|---|---|---|\n${table}<!-- statuses:end -->\n`);
      return readStatusAllowances(file);
    };

    it('reads one allowance per operation of a row', () => {
      expect(read('| `GET /users/{username}`, `* /repos/*` | 404, 422 | | Gitea does |\n| `* *` | 400 | `invalid JSON` | Cairn |\n')).toEqual([
        { method: 'GET', path: '/users/{username}', statuses: [404, 422], reason: 'Gitea does' },
        { method: '*', path: '/repos/*', statuses: [404, 422], reason: 'Gitea does' },
        { method: '*', path: '*', statuses: [400], message: 'invalid JSON', reason: 'Cairn' },
      ]);
    });

    it('refuses a row without an operation, a status, an error status or a reason', () => {
      expect(() => read('| users | 404 | | why |\n')).toThrow(/needs/);
      expect(() => read('| `GET /users/{username}` | | | why |\n')).toThrow(/needs/);
      expect(() => read('| `GET /users/{username}` | 204 | | why |\n')).toThrow(/needs/);
      expect(() => read('| `GET /users/{username}` | 404 | unquoted | why |\n')).toThrow(/needs/);
      expect(() => read('| `GET /users/{username}` | 404 | | |\n')).toThrow(/needs/);
    });

    it("reads docs/api.md's table, every row naming an operation of Gitea's description", () => {
      const allowances = readStatusAllowances(path.join(ROOT, 'docs', 'api.md'));
      expect(() => loadGiteaApi(DESCRIPTION, allowances)).not.toThrow();
    });
  });

  it('checks exact shapes', () => {
    expect(() => api.expectExactShape('User', user)).not.toThrow();
    expect(() => api.expectExactShape('User', { ...user, extra: 1 })).toThrow(/extra/);
  });
});
