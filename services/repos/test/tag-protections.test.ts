/**
 * TagProtectionService over gRPC on a real database, with accounts in memory: rule CRUD as Gitea's API has it
 * (admins only, patterns checked, names resolved to ids, Gitea's errors), and who may control which tags —
 * CheckTagControl, mayControlTag and the tag rules GetPushPolicy hands git-storage.
 */
import { TagProtection } from '@cairn/proto/cairn/repos/v1/tag_protections_service';
import { Code } from '@cairn/rpc';
import { loadPushTagRules, mayControlTag } from '../src/protection/tag-rules';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('TagProtectionService', () => {
  let h: ReposHarness;
  let org: number;
  let boss: number;
  let alice: number;
  let bob: number;
  let dev: number;
  let stranger: number;
  let repoId: number;
  let archivedId: number;
  let userRepoId: number;

  beforeAll(async () => {
    h = await startReposHarness();
    org = h.accounts.addOrg('acme');
    boss = h.accounts.addUser('boss');
    alice = h.accounts.addUser('alice');
    bob = h.accounts.addUser('bob');
    dev = h.accounts.addUser('dev');
    stranger = h.accounts.addUser('stranger');
    h.accounts.addMember(h.accounts.ownersTeam(org), boss);
    const devs = h.accounts.addTeam(org, 'Devs');
    h.accounts.addMember(devs, dev);
    repoId = await h.insertRepo({ ownerId: org, ownerName: 'acme', ownerIsOrg: true, name: 'app', isPrivate: true });
    archivedId = await h.insertRepo({ ownerId: org, ownerName: 'acme', ownerIsOrg: true, name: 'old', isArchived: true });
    userRepoId = await h.insertRepo({ ownerId: alice, ownerName: 'alice', name: 'mine' });
    await h.linkTeam(repoId, org, devs);
    await h.addCollaborator(repoId, alice, 'write');
    await h.addCollaborator(repoId, bob, 'write');
  });

  afterAll(async () => {
    await h?.stop();
  });

  const rule = (fields: Partial<TagProtection>) => TagProtection.fromPartial(fields);
  const create = (actorId: number, fields: Partial<TagProtection>, repo = repoId) =>
    h.tagProtections.createTagProtection({ actor: h.accounts.actor(actorId), repoId: repo, protection: rule(fields) });
  const list = async (repo = repoId) => (await h.tagProtections.listTagProtections({ viewer: h.accounts.actor(boss), repoId: repo })).protections;
  const control = async (actorId: number, ...tagNames: string[]) =>
    (await h.tagProtections.checkTagControl({ actor: h.accounts.actor(actorId), repoId, tagNames })).tags.map((tag) => [tag.tagName, tag.protected, tag.allowed]);

  let releaseId = 0;

  describe('rules', () => {
    it('creates a rule, trimming its pattern and answering its lists with names', async () => {
      const { protection } = await create(boss, { namePattern: '  v*  ', whitelistUsernames: ['Alice'], whitelistTeams: ['devs'] });
      expect(protection).toMatchObject({ namePattern: 'v*', whitelistUsernames: ['alice'], whitelistTeams: ['Devs'] });
      expect(protection?.created).toBeInstanceOf(Date);
      releaseId = (await create(boss, { namePattern: '/^release-[0-9]+$/', whitelistUsernames: ['boss'] })).protection?.id ?? 0;
      expect((await list()).map((found) => found.namePattern)).toEqual(['v*', '/^release-[0-9]+$/']);
    });

    it("refuses what Gitea refuses, and patterns that do not compile, storing nothing", async () => {
      const before = await list();
      await expect(create(boss, { namePattern: 'v*', whitelistUsernames: ['bob'] })).rejects.toMatchObject({
        code: Code.ALREADY_EXISTS,
        message: 'Tag protection already exist',
      });
      await expect(create(boss, { namePattern: ' ', whitelistUsernames: ['bob'] })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'name_pattern_empty' });
      await expect(create(boss, { namePattern: 'x*' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'allow_lists_empty' });
      await expect(create(boss, { namePattern: 'v[', whitelistUsernames: ['bob'] })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_name_pattern' });
      await expect(create(boss, { namePattern: '/(?<=v)1/', whitelistUsernames: ['bob'] })).rejects.toMatchObject({ reason: 'invalid_name_pattern' });
      await expect(create(boss, { namePattern: 'x*', whitelistUsernames: ['ghost'] })).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'user_not_found',
        message: 'user does not exist [uid: 0, name: ghost]',
      });
      await expect(create(boss, { namePattern: 'x*', whitelistTeams: ['nobody'] })).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'team_not_found',
        message: `team does not exist [org_id ${org}, team_id 0, name: nobody]`,
      });
      expect(await list()).toEqual(before);
    });

    it('ignores team lists on a user-owned repository', async () => {
      const { protection } = await create(alice, { namePattern: '*', whitelistTeams: ['anything'], whitelistUsernames: ['bob'] }, userRepoId);
      expect(protection).toMatchObject({ whitelistTeams: [], whitelistUsernames: ['bob'] });
    });

    it('is for repository admins, and changes not on archived repositories', async () => {
      await expect(create(alice, { namePattern: 'z*', whitelistUsernames: ['bob'] })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
      await expect(create(stranger, { namePattern: 'z*', whitelistUsernames: ['bob'] })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(create(boss, { namePattern: 'z*', whitelistUsernames: ['bob'] }, archivedId)).rejects.toMatchObject({
        code: Code.FAILED_PRECONDITION,
        reason: 'repo_archived',
      });
      await expect(h.tagProtections.listTagProtections({ viewer: h.accounts.actor(alice), repoId })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    });

    it('gets, edits only the fields given, and deletes by id within the repository', async () => {
      const get = (id: number, repo = repoId, viewer = boss) => h.tagProtections.getTagProtection({ viewer: h.accounts.actor(viewer), repoId: repo, id });
      await expect(get(releaseId)).resolves.toMatchObject({ protection: { namePattern: '/^release-[0-9]+$/' } });
      // Another repository's rule is not found, even by that repository's admin.
      await expect(get(releaseId, userRepoId, alice)).rejects.toMatchObject({ code: Code.NOT_FOUND, reason: 'tag_protection_not_found' });
      const edit = (fields: string[], values: Partial<TagProtection>, id = releaseId) =>
        h.tagProtections.updateTagProtection({ actor: h.accounts.actor(boss), repoId, id, protection: rule(values), fields });
      await expect(edit(['whitelist_teams'], { whitelistTeams: ['Devs'], whitelistUsernames: [] })).resolves.toMatchObject({
        protection: { whitelistUsernames: ['boss'], whitelistTeams: ['Devs'] },
      });
      await expect(edit(['name_pattern'], { namePattern: 'v*' })).rejects.toMatchObject({ code: Code.ALREADY_EXISTS });
      await expect(edit(['name_pattern'], { namePattern: '{x' })).rejects.toMatchObject({ reason: 'invalid_name_pattern' });
      await expect(edit(['whitelist_usernames'], { whitelistUsernames: ['ghost'] })).rejects.toMatchObject({ reason: 'user_not_found' });
      await expect(edit(['name_pattern'], { namePattern: 'x' }, 999_999)).rejects.toMatchObject({ code: Code.NOT_FOUND });
      const scratch = (await create(boss, { namePattern: 'tmp-*', whitelistUsernames: ['bob'] })).protection?.id ?? 0;
      await h.tagProtections.deleteTagProtection({ actor: h.accounts.actor(boss), repoId, id: scratch });
      await expect(get(scratch)).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(h.tagProtections.deleteTagProtection({ actor: h.accounts.actor(boss), repoId, id: scratch })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    });
  });

  describe('who controls which tags', () => {
    // Rules now: `v*` (alice, team Devs) and `/^release-[0-9]+$/` (boss, team Devs).
    it('lets anyone control a tag no rule matches', async () => {
      expect(await control(bob, 'nightly', 'x/v1')).toEqual([
        ['nightly', false, true],
        ['x/v1', false, true],
      ]);
    });

    it('lets a matching rule allow users on its list and members of its teams only, admins included', async () => {
      expect(await control(alice, 'v1', 'release-2')).toEqual([
        ['v1', true, true],
        ['release-2', true, false],
      ]);
      expect(await control(dev, 'v1', 'release-2')).toEqual([
        ['v1', true, true],
        ['release-2', true, true],
      ]);
      expect(await control(bob, 'v1', 'release-2', 'release-x')).toEqual([
        ['v1', true, false],
        ['release-2', true, false],
        ['release-x', false, true],
      ]);
      // The organization's owner is not on `v*`'s list.
      expect(await control(boss, 'v1', 'release-2')).toEqual([
        ['v1', true, false],
        ['release-2', true, true],
      ]);
    });

    it('answers the same through mayControlTag and the push policy', async () => {
      const repo = { id: repoId, ownerId: org, ownerType: 1 };
      await expect(mayControlTag(h.context, repo, bob, 'v2')).resolves.toBe(false);
      await expect(mayControlTag(h.context, repo, alice, 'v2')).resolves.toBe(true);
      await expect(mayControlTag(h.context, repo, bob, 'other')).resolves.toBe(true);
      await expect(loadPushTagRules(h.context, repo, dev)).resolves.toEqual([
        { namePattern: 'v*', allowed: true },
        { namePattern: '/^release-[0-9]+$/', allowed: true },
      ]);
      await expect(loadPushTagRules(h.context, repo, alice)).resolves.toEqual([
        { namePattern: 'v*', allowed: true },
        { namePattern: '/^release-[0-9]+$/', allowed: false },
      ]);
      const { tagRules } = await h.repos.getPushPolicy({ pusher: h.accounts.actor(bob), id: repoId });
      expect(tagRules).toEqual([
        { namePattern: 'v*', allowed: false },
        { namePattern: '/^release-[0-9]+$/', allowed: false },
      ]);
    });

    it('answers CheckTagControl only to those who may read the code', async () => {
      await expect(h.tagProtections.checkTagControl({ actor: h.accounts.actor(stranger), repoId, tagNames: ['v1'] })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    });
  });
});
