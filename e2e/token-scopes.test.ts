/**
 * Token scopes end to end, through the gateway with the validating client and real git pushes:
 * - a token used as the basic-auth password creates only tokens within its own scopes (403 otherwise, nothing
 *   created), a public-only one only public-only tokens; a password sign-in stays unrestricted;
 * - a public-only token of alice sees only public objects on every list, search, count and lookup where her normal
 *   token sees her private repository, her private organization, a private user of her organization, an issue and
 *   a pull request in her private repository and her pushes to it (heatmap), and the topics and teams around them.
 */
import { type Fixture, startFixture } from './support/fixture';
import { type PullWork, pullWork } from './support/pull-work';

jest.setTimeout(180_000);

interface Named {
  name?: string;
  full_name?: string;
  login?: string;
  title?: string;
}
interface Token {
  id: number;
  name: string;
  scopes: string[];
  sha1: string;
}
interface HeatmapEntry {
  timestamp: number;
  contributions: number;
}

const READ_ALL = ['read:user', 'read:repository', 'read:organization', 'read:issue'];

describe('token scopes', () => {
  let fixture: Fixture;
  let w: PullWork;
  /** alice's token headers: every read scope, and the same limited to public objects. */
  let full: Record<string, string>;
  let publicOnly: Record<string, string>;
  let privRepoId: number;
  /** The Owners teams of alice's public and private organizations. */
  let pubcoOwners: number;
  let secretcoOwners: number;

  async function createToken(headers: Record<string, string>, name: string, scopes: string[], user = 'alice') {
    return w.call<Token>('POST', `/users/${user}/tokens`, headers, { name, scopes });
  }

  async function tokenOf(name: string, scopes: string[]): Promise<string> {
    const created = await createToken(fixture.as('alice'), name, scopes);
    expect([name, created.status]).toEqual([name, 201]);
    return created.body.sha1;
  }

  /** Basic auth with a token as the password, as `git` and `tea` send it. */
  const basicToken = (sha1: string, user = 'alice') => ({ authorization: `Basic ${Buffer.from(`${user}:${sha1}`).toString('base64')}` });

  async function ok<T>(path: string, headers: Record<string, string>): Promise<{ body: T; total: string | null }> {
    const res = await w.call<T>('GET', path, headers);
    expect([path, res.status]).toEqual([path, 200]);
    return { body: res.body, total: res.headers.get('x-total-count') };
  }

  /** What names an item: a repository's full name, a user's login, an issue's title, an organization's name. */
  const nameOf = (item: Named): string => {
    const candidates = [item.full_name?.includes('/') ? item.full_name : undefined, item.login, item.title, item.name];
    return candidates.find((name) => name !== undefined && name !== '') ?? '';
  };
  const names = (items: Named[]): string[] => items.map(nameOf).sort();

  beforeAll(async () => {
    fixture = await startFixture('e2e_token_scopes', ['alice']);
    w = await pullWork(fixture);
    const alice = fixture.as('alice');
    const made = await w.call('POST', '/admin/users', fixture.root, {
      username: 'hermit',
      email: 'hermit@example.com',
      password: 'hermit-pass-123',
      must_change_password: false,
      visibility: 'private',
    });
    expect(made.status).toBe(201);

    for (const [name, isPrivate] of [['pub', false], ['priv', true]] as const) {
      const repo = await w.call<{ id: number }>('POST', '/user/repos', alice, { name, private: isPrivate, auto_init: true });
      expect(repo.status).toBe(201);
      if (isPrivate) privRepoId = repo.body.id;
    }
    expect((await w.call('POST', '/orgs', alice, { username: 'pubco', visibility: 'public' })).status).toBe(201);
    expect((await w.call('POST', '/orgs', alice, { username: 'secretco', visibility: 'private' })).status).toBe(201);
    const ownersOf = async (org: string) => {
      const teams = await w.call<Array<{ id: number; name: string }>>('GET', `/orgs/${org}/teams`, alice);
      return teams.body.find((team) => team.name === 'Owners')?.id ?? 0;
    };
    pubcoOwners = await ownersOf('pubco');
    secretcoOwners = await ownersOf('secretco');
    // hermit (a private user) joins pubco, so alice may see hermit; alice cannot see hermit yet: an admin adds them.
    expect((await w.call('PUT', `/teams/${pubcoOwners}/members/hermit`, fixture.root)).status).toBe(204);
    // pubco has a public and a private repository too, and each repository of alice's a topic of its own.
    for (const [name, isPrivate] of [['site', false], ['vault', true]] as const) {
      expect((await w.call('POST', '/orgs/pubco/repos', alice, { name, private: isPrivate })).status).toBe(201);
    }
    expect((await w.call('PUT', '/repos/alice/pub/topics/open-topic', alice)).status).toBe(204);
    expect((await w.call('PUT', '/repos/alice/priv/topics/hidden-topic', alice)).status).toBe(204);

    // An issue and a pull request in each repository; the branches pushed are alice's heatmap activity.
    for (const repo of ['pub', 'priv']) {
      const label = repo === 'pub' ? 'Public' : 'Secret';
      expect((await w.call('POST', `/repos/alice/${repo}/issues`, alice, { title: `${label} issue` })).status).toBe(201);
      const clone = await w.clone(`alice/${repo}`, 'alice', repo);
      await w.pushBranch(clone, 'feature', 'feature.txt', `${repo}\n`);
      await w.createPull(`alice/${repo}`, 'feature', `${label} pull`, alice);
    }

    full = { authorization: `token ${await tokenOf('full', READ_ALL)}` };
    publicOnly = { authorization: `token ${await tokenOf('public', ['public-only', ...READ_ALL])}` };
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
  });

  describe('creating tokens with a token', () => {
    async function tokenNames(): Promise<string[]> {
      return names((await ok<Token[]>('/users/alice/tokens', fixture.as('alice'))).body);
    }

    it('refuses scopes beyond the creating token’s own with 403 and creates nothing', async () => {
      const writeUser = basicToken(await tokenOf('writer', ['write:user']));
      const before = await tokenNames();
      for (const scopes of [['all'], ['write:user', 'read:repository'], ['write:admin']]) {
        const refused = await createToken(writeUser, `wider-${scopes.join('-')}`, scopes);
        expect([scopes, refused.status]).toEqual([scopes, 403]);
        expect((refused.body as unknown as { message: string }).message).toContain('token scope exceeds the scope of the token used to create it');
      }
      expect(await tokenNames()).toEqual(before);
      // Within its scopes it still creates: the same scope, or less.
      expect((await createToken(writeUser, 'same', ['write:user'])).body.scopes).toEqual(['write:user']);
      expect((await createToken(writeUser, 'narrower', ['read:user'])).body.scopes).toEqual(['read:user']);
    });

    it('lets a public-only token create public-only tokens only', async () => {
      const limited = basicToken(await tokenOf('limited', ['public-only', 'write:user']));
      expect((await createToken(limited, 'not-limited', ['read:user'])).status).toBe(403);
      const created = await createToken(limited, 'still-limited', ['public-only', 'read:user']);
      expect([created.status, created.body.scopes]).toEqual([201, ['public-only', 'read:user']]);
    });

    it('limits an administrator’s token too, and leaves password sign-ins unrestricted', async () => {
      const rootToken = await createToken(fixture.root, 'root-user', ['write:user'], 'root');
      expect(rootToken.status).toBe(201);
      expect((await createToken(basicToken(rootToken.body.sha1, 'root'), 'for-alice', ['write:admin'])).status).toBe(403);
      expect((await createToken(fixture.as('alice'), 'by-password', ['all'])).status).toBe(201);
    });
  });

  describe('a public-only token', () => {
    it('lists only public repositories, with totals to match', async () => {
      const expected: Array<[string, string[], string[]]> = [
        ['/user/repos', ['alice/priv', 'alice/pub', 'pubco/site', 'pubco/vault'], ['alice/pub', 'pubco/site']],
        ['/users/alice/repos', ['alice/priv', 'alice/pub'], ['alice/pub']],
        ['/orgs/pubco/repos', ['pubco/site', 'pubco/vault'], ['pubco/site']],
        ['/repos/search?q=p', ['alice/priv', 'alice/pub'], ['alice/pub']],
      ];
      const list = (body: Named[] | { data: Named[] }) => names(Array.isArray(body) ? body : body.data);
      for (const [path, all, onlyPublic] of expected) {
        const seen = await ok<Named[] | { data: Named[] }>(path, full);
        const limited = await ok<Named[] | { data: Named[] }>(path, publicOnly);
        expect([path, list(seen.body), seen.total]).toEqual([path, all, String(all.length)]);
        expect([path, list(limited.body), limited.total]).toEqual([path, onlyPublic, String(onlyPublic.length)]);
      }
      // Paged, the total still counts public repositories only.
      const firstPage = await ok<Named[]>('/user/repos?limit=1', publicOnly);
      expect([names(firstPage.body), firstPage.total]).toEqual([['alice/pub'], '2']);
    });

    it('does not reach a private repository by name or id', async () => {
      expect((await w.call('GET', '/repos/alice/priv', full)).status).toBe(200);
      expect((await w.call('GET', `/repositories/${privRepoId}`, full)).status).toBe(200);
      expect((await w.call('GET', '/repos/alice/priv', publicOnly)).status).toBe(403);
      expect((await w.call('GET', `/repositories/${privRepoId}`, publicOnly)).status).toBe(403);
    });

    it('lists only public organizations', async () => {
      for (const path of ['/user/orgs', '/users/alice/orgs', '/orgs']) {
        const seen = await ok<Named[]>(path, full);
        const limited = await ok<Named[]>(path, publicOnly);
        expect([path, names(seen.body), seen.total]).toEqual([path, ['pubco', 'secretco'], '2']);
        expect([path, names(limited.body), limited.total]).toEqual([path, ['pubco'], '1']);
      }
      expect((await w.call('GET', '/orgs/secretco', full)).status).toBe(200);
      expect((await w.call('GET', '/orgs/secretco', publicOnly)).status).toBe(403);
      expect((await w.call('GET', '/users/alice/orgs/secretco/permissions', publicOnly)).status).toBe(403);
    });

    it('reaches teams of public organizations only, and lists their public repositories and users only', async () => {
      expect((await w.call('GET', `/teams/${secretcoOwners}`, full)).status).toBe(200);
      for (const path of [`/teams/${secretcoOwners}`, `/teams/${secretcoOwners}/members`, `/teams/${secretcoOwners}/repos`]) {
        expect([path, (await w.call('GET', path, publicOnly)).status]).toEqual([path, 403]);
      }
      expect((await w.call('GET', `/teams/${pubcoOwners}`, publicOnly)).status).toBe(200);
      const repos = `/teams/${pubcoOwners}/repos`;
      const seenRepos = await ok<Named[]>(repos, full);
      expect([names(seenRepos.body), seenRepos.total]).toEqual([['pubco/site', 'pubco/vault'], '2']);
      const publicRepos = await ok<Named[]>(repos, publicOnly);
      expect([names(publicRepos.body), publicRepos.total]).toEqual([['pubco/site'], '1']);
      const members = `/teams/${pubcoOwners}/members`;
      const seenMembers = await ok<Named[]>(members, full);
      expect([names(seenMembers.body), seenMembers.total]).toEqual([['alice', 'hermit'], '2']);
      const publicMembers = await ok<Named[]>(members, publicOnly);
      expect([names(publicMembers.body), publicMembers.total]).toEqual([['alice'], '1']);
    });

    it('counts topics over public repositories only', async () => {
      const topics = (body: { topics: Array<{ topic_name: string; repo_count: number }> }) => body.topics.map((topic) => topic.topic_name).sort();
      const seen = await ok<{ topics: Array<{ topic_name: string; repo_count: number }> }>('/topics/search?q=topic', full);
      expect([topics(seen.body), seen.total]).toEqual([['hidden-topic', 'open-topic'], '2']);
      const limited = await ok<{ topics: Array<{ topic_name: string; repo_count: number }> }>('/topics/search?q=topic', publicOnly);
      expect([topics(limited.body), limited.total]).toEqual([['open-topic'], '1']);
    });

    it('sees only public users', async () => {
      const found = await ok<{ data: Named[] }>('/users/search?q=hermit', full);
      expect([names(found.body.data), found.total]).toEqual([['hermit'], '1']);
      const hidden = await ok<{ data: Named[] }>('/users/search?q=hermit', publicOnly);
      expect([names(hidden.body.data), hidden.total]).toEqual([[], '0']);
      expect((await w.call('GET', '/users/hermit', full)).status).toBe(200);
      expect((await w.call('GET', '/users/hermit', publicOnly)).status).toBe(403);
      const members = await ok<Named[]>('/orgs/pubco/members', full);
      expect([names(members.body), members.total]).toEqual([['alice', 'hermit'], '2']);
      const publicMembers = await ok<Named[]>('/orgs/pubco/members', publicOnly);
      expect([names(publicMembers.body), publicMembers.total]).toEqual([['alice'], '1']);
    });

    it('keeps a site administrator’s public-only token to public users and organizations too', async () => {
      const adminToken = async (name: string, scopes: string[]) => {
        const created = await createToken(fixture.root, name, scopes, 'root');
        expect(created.status).toBe(201);
        return { authorization: `token ${created.body.sha1}` };
      };
      const adminFull = await adminToken('admin-full', ['read:admin']);
      const adminPublic = await adminToken('admin-public', ['public-only', 'read:admin']);
      const found = await ok<Named[]>('/admin/users?q=hermit', adminFull);
      expect([names(found.body), found.total]).toEqual([['hermit'], '1']);
      const hidden = await ok<Named[]>('/admin/users?q=hermit', adminPublic);
      expect([names(hidden.body), hidden.total]).toEqual([[], '0']);
      expect((await ok<Named[]>('/admin/users?visibility=private', adminPublic)).body).toEqual([]);
      const orgs = await ok<Named[]>('/admin/orgs', adminFull);
      expect([names(orgs.body), orgs.total]).toEqual([['pubco', 'secretco'], '2']);
      const publicOrgs = await ok<Named[]>('/admin/orgs', adminPublic);
      expect([names(publicOrgs.body), publicOrgs.total]).toEqual([['pubco'], '1']);
    });

    it('sees only issues and pull requests of public repositories', async () => {
      for (const [type, label] of [['issues', 'issue'], ['pulls', 'pull']]) {
        const path = `/repos/issues/search?type=${type}`;
        const seen = await ok<Named[]>(path, full);
        expect([path, names(seen.body), seen.total]).toEqual([path, [`Public ${label}`, `Secret ${label}`], '2']);
        const limited = await ok<Named[]>(path, publicOnly);
        expect([path, names(limited.body), limited.total]).toEqual([path, [`Public ${label}`], '1']);
      }
      for (const path of ['/repos/alice/priv/issues', '/repos/alice/priv/issues/1', '/repos/alice/priv/pulls', '/repos/alice/priv/pulls/2']) {
        expect([path, (await w.call('GET', path, full)).status]).toEqual([path, 200]);
        expect([path, (await w.call('GET', path, publicOnly)).status]).toEqual([path, 403]);
      }
    });

    it('sees heatmap activity in public repositories only, as an anonymous visitor does', async () => {
      const total = (entries: HeatmapEntry[]) => entries.reduce((sum, entry) => sum + entry.contributions, 0);
      // Each pushed branch counts twice (a new branch): alice pushed one to each repository.
      let seen = 0;
      for (let attempt = 0; attempt < 100 && seen < 4; attempt += 1) {
        seen = total((await ok<HeatmapEntry[]>('/users/alice/heatmap', full)).body);
        if (seen < 4) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(seen).toBe(4);
      expect(total((await ok<HeatmapEntry[]>('/users/alice/heatmap', {})).body)).toBe(2);
      expect(total((await ok<HeatmapEntry[]>('/users/alice/heatmap', publicOnly)).body)).toBe(2);
    });

    it('does not open a pull request from a private head repository', async () => {
      // Last: the branch it pushes is heatmap activity of alice's.
      // secretco/pub: a fork of alice/pub (public, as its base) in alice's private organization, with a branch to propose.
      expect((await w.call('POST', '/repos/alice/pub/forks', fixture.as('alice'), { organization: 'secretco' })).status).toBe(202);
      const clone = await w.clone('secretco/pub', 'alice', 'private-fork');
      await w.pushBranch(clone, 'proposal', 'proposal.txt', 'from a private fork\n');
      const pull = { head: 'secretco:proposal', base: 'main', title: 'From a private fork' };
      const limitedWriter = { authorization: `token ${await tokenOf('public-writer', ['public-only', 'write:repository'])}` };
      const refused = await w.call<{ message: string }>('POST', '/repos/alice/pub/pulls', limitedWriter, pull);
      expect([refused.status, refused.body.message]).toEqual([403, 'token scope is limited to public repos']);
      expect((await ok<Named[]>('/repos/alice/pub/pulls?state=all', full)).body.map(nameOf)).not.toContain('From a private fork');
      const writer = { authorization: `token ${await tokenOf('head-writer', ['write:repository'])}` };
      expect((await w.call('POST', '/repos/alice/pub/pulls', writer, pull)).status).toBe(201);
    });
  });
});
