/**
 * BranchProtectionService over gRPC on a real database, with accounts in memory: rule CRUD as Gitea's API has it
 * (admins only, names resolved to ids, Gitea's errors), priorities, and what a rule lets each user do on a branch.
 */
import { BranchProtection } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code } from '@cairn/rpc';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('BranchProtectionService', () => {
  let h: ReposHarness;
  let org: number;
  let boss: number;
  let alice: number;
  let bob: number;
  let dev: number;
  let stranger: number;
  let devs: number;
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
    devs = h.accounts.addTeam(org, 'Devs');
    h.accounts.addMember(devs, dev);
    h.accounts.addTeam(org, 'QA');
    repoId = await h.insertRepo({ ownerId: org, ownerName: 'acme', ownerIsOrg: true, name: 'app', isPrivate: true });
    archivedId = await h.insertRepo({ ownerId: org, ownerName: 'acme', ownerIsOrg: true, name: 'old', isArchived: true });
    userRepoId = await h.insertRepo({ ownerId: alice, ownerName: 'alice', name: 'mine' });
    await h.linkTeam(repoId, org, devs);
    await h.addCollaborator(repoId, alice, 'write');
    await h.addCollaborator(repoId, bob, 'read');
  });

  afterAll(async () => {
    await h?.stop();
  });

  const rule = (fields: Partial<BranchProtection>) => BranchProtection.fromPartial(fields);
  const create = (actorId: number, fields: Partial<BranchProtection>, repo = repoId) =>
    h.protections.createBranchProtection({ actor: h.accounts.actor(actorId), repoId: repo, protection: rule(fields) });
  const list = async (repo = repoId) => (await h.protections.listBranchProtections({ viewer: h.accounts.actor(boss), repoId: repo })).protections;

  describe('creating', () => {
    it('stores a rule with its allow lists and answers it with names', async () => {
      const { protection } = await create(boss, {
        ruleName: 'main',
        enablePush: true,
        enablePushWhitelist: true,
        pushWhitelistUsernames: ['Alice'],
        pushWhitelistTeams: ['devs'],
        enableMergeWhitelist: true,
        mergeWhitelistUsernames: ['boss'],
        enableStatusCheck: true,
        statusCheckContexts: ['ci/build'],
        requiredApprovals: 2,
        requireSignedCommits: true,
        protectedFilePatterns: '*.lock',
      });
      expect(protection).toMatchObject({
        ruleName: 'main',
        priority: 1,
        enablePush: true,
        enablePushWhitelist: true,
        pushWhitelistUsernames: ['alice'],
        pushWhitelistTeams: ['Devs'],
        mergeWhitelistUsernames: ['boss'],
        forcePushAllowlistUsernames: [],
        statusCheckContexts: ['ci/build'],
        requiredApprovals: 2,
        requireSignedCommits: true,
        protectedFilePatterns: '*.lock',
      });
      expect(protection?.created).toBeInstanceOf(Date);
    });

    it('puts a new rule after the others unless it names a priority', async () => {
      expect((await create(boss, { ruleName: 'release/*' })).protection?.priority).toBe(2);
      expect((await create(boss, { ruleName: 'dev', priority: 9 })).protection?.priority).toBe(9);
      expect((await create(boss, { ruleName: 'hotfix/**' })).protection?.priority).toBe(10);
    });

    it('refuses an existing rule, an empty name and unknown users or teams, storing nothing', async () => {
      const before = await list();
      await expect(create(boss, { ruleName: 'main' })).rejects.toMatchObject({
        code: Code.ALREADY_EXISTS,
        reason: 'branch_protection_exists',
        message: 'Branch protection already exist',
      });
      await expect(create(boss, { ruleName: '' })).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'rule_name_empty',
        message: 'both rule_name and branch_name are empty',
      });
      await expect(create(boss, { ruleName: 'x', mergeWhitelistUsernames: ['ghost'] })).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'user_not_found',
        message: 'user does not exist [uid: 0, name: ghost]',
      });
      await expect(create(boss, { ruleName: 'x', forcePushAllowlistTeams: ['nobody'] })).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'team_not_found',
        message: `team does not exist [org_id ${org}, team_id 0, name: nobody]`,
      });
      expect(await list()).toEqual(before);
    });

    it('ignores team lists on a user-owned repository', async () => {
      const { protection } = await create(alice, { ruleName: 'main', pushWhitelistTeams: ['anything'], pushWhitelistUsernames: ['bob'] }, userRepoId);
      expect(protection).toMatchObject({ pushWhitelistTeams: [], pushWhitelistUsernames: ['bob'] });
    });

    it('is for repository admins, and not on archived repositories', async () => {
      await expect(create(alice, { ruleName: 'other' })).rejects.toMatchObject({
        code: Code.PERMISSION_DENIED,
        message: 'user should be an owner or a collaborator with admin write of a repository',
      });
      await expect(create(stranger, { ruleName: 'other' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(create(boss, { ruleName: 'other' }, archivedId)).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'repo_archived' });
      await expect(list(archivedId)).resolves.toEqual([]);
      await expect(h.protections.listBranchProtections({ viewer: h.accounts.actor(alice), repoId })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    });
  });

  describe('reading', () => {
    it('lists in priority order', async () => {
      expect((await list()).map((protection) => protection.ruleName)).toEqual(['main', 'release/*', 'dev', 'hotfix/**']);
    });

    it('gets one rule by its exact name', async () => {
      const { protection } = await h.protections.getBranchProtection({ viewer: h.accounts.actor(boss), repoId, ruleName: 'release/*' });
      expect(protection?.ruleName).toBe('release/*');
      await expect(h.protections.getBranchProtection({ viewer: h.accounts.actor(boss), repoId, ruleName: 'Main' })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
        reason: 'branch_protection_not_found',
      });
    });

    it('keeps listing a renamed user under the new name', async () => {
      h.accounts.rename(alice, 'alice2');
      try {
        const { protection } = await h.protections.getBranchProtection({ viewer: h.accounts.actor(boss), repoId, ruleName: 'main' });
        expect(protection?.pushWhitelistUsernames).toEqual(['alice2']);
      } finally {
        h.accounts.rename(alice, 'alice');
      }
    });
  });

  describe('editing', () => {
    const edit = (fields: string[], values: Partial<BranchProtection>, ruleName = 'main') =>
      h.protections.updateBranchProtection({ actor: h.accounts.actor(boss), repoId, ruleName, protection: rule(values), fields });

    it('changes only the fields named', async () => {
      const { protection } = await edit(['required_approvals', 'merge_whitelist_usernames'], {
        requiredApprovals: 1,
        mergeWhitelistUsernames: ['alice', 'bob'],
        statusCheckContexts: [],
        pushWhitelistUsernames: [],
      });
      expect(protection).toMatchObject({
        requiredApprovals: 1,
        mergeWhitelistUsernames: ['alice', 'bob'],
        statusCheckContexts: ['ci/build'],
        pushWhitelistUsernames: ['alice'],
        pushWhitelistTeams: ['Devs'],
        enablePushWhitelist: true,
      });
    });

    it('turning pushing off turns its whitelist off but keeps the names', async () => {
      const { protection } = await edit(['enable_push'], { enablePush: false });
      expect(protection).toMatchObject({ enablePush: false, enablePushWhitelist: false, pushWhitelistUsernames: ['alice'] });
      await edit(['enable_push', 'enable_push_whitelist'], { enablePush: true, enablePushWhitelist: true });
    });

    it('answers 404 for an unknown rule before looking at names, and 422 for unknown names', async () => {
      await expect(edit(['push_whitelist_usernames'], { pushWhitelistUsernames: ['ghost'] }, 'nope')).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(edit(['push_whitelist_usernames'], { pushWhitelistUsernames: ['ghost'] })).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'user_not_found',
      });
    });
  });

  describe('renaming', () => {
    const rename = (from: string, to: string) =>
      h.protections.updateBranchProtection({ actor: h.accounts.actor(boss), repoId, ruleName: from, protection: rule({ ruleName: to }), fields: ['rule_name'] });

    it('renames a rule with rule_name, keeping its settings and place', async () => {
      const before = (await h.protections.getBranchProtection({ viewer: h.accounts.actor(boss), repoId, ruleName: 'dev' })).protection;
      const { protection } = await rename('dev', 'develop');
      expect(protection).toEqual({ ...before, ruleName: 'develop', updated: protection?.updated });
      expect((await list()).map(({ ruleName }) => ruleName)).toEqual(['main', 'release/*', 'develop', 'hotfix/**']);
      await expect(h.protections.getBranchProtection({ viewer: h.accounts.actor(boss), repoId, ruleName: 'dev' })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
      });
      await rename('develop', 'dev');
    });

    it('refuses a name another rule has, or an empty one, changing nothing', async () => {
      await expect(rename('dev', 'main')).rejects.toMatchObject({ code: Code.ALREADY_EXISTS, reason: 'branch_protection_exists' });
      await expect(rename('dev', '')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'rule_name_empty' });
      expect((await list()).map(({ ruleName }) => ruleName)).toEqual(['main', 'release/*', 'dev', 'hotfix/**']);
    });
  });

  describe('priorities and deletion', () => {
    it('orders rules by the ids given', async () => {
      const byName = new Map((await list()).map((protection) => [protection.ruleName, protection.id]));
      await h.protections.setBranchProtectionPriority({
        actor: h.accounts.actor(boss),
        repoId,
        ids: [byName.get('hotfix/**')!, byName.get('dev')!, byName.get('main')!, byName.get('release/*')!],
      });
      expect((await list()).map((protection) => [protection.ruleName, protection.priority])).toEqual([
        ['hotfix/**', 1],
        ['dev', 2],
        ['main', 3],
        ['release/*', 4],
      ]);
    });

    it('deletes a rule, and answers NOT_FOUND for one that is not there', async () => {
      await h.protections.deleteBranchProtection({ actor: h.accounts.actor(boss), repoId, ruleName: 'dev' });
      await expect(h.protections.deleteBranchProtection({ actor: h.accounts.actor(boss), repoId, ruleName: 'dev' })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
      });
      expect((await list()).map((protection) => protection.ruleName)).toEqual(['hotfix/**', 'main', 'release/*']);
    });
  });

  describe('matching branches', () => {
    const match = async (viewerId: number, branches: string[]) =>
      (await h.protections.matchBranchProtection({ viewer: viewerId === 0 ? undefined : h.accounts.actor(viewerId), repoId, branches })).matches;

    it('answers the rule of each branch in order', async () => {
      const matches = await match(boss, ['main', 'release/v1', 'release/v1/x', 'feature']);
      expect(matches.map((found) => [found.branch, found.protection?.ruleName])).toEqual([
        ['main', 'main'],
        ['release/v1', 'release/*'],
        ['release/v1/x', undefined],
        ['feature', undefined],
      ]);
      expect(matches[0].protection).toMatchObject({ requiredApprovals: 1, enableStatusCheck: true, statusCheckContexts: ['ci/build'] });
    });

    it('lets only whitelisted users and teams push to a whitelisted branch, admins included', async () => {
      const canPush = async (viewerId: number) => (await match(viewerId, ['main']))[0].userCanPush;
      expect(await canPush(alice)).toBe(true);
      expect(await canPush(dev)).toBe(true);
      expect(await canPush(boss)).toBe(false);
      expect(await canPush(bob)).toBe(false);
    });

    it('lets the merge whitelist merge, and writers elsewhere', async () => {
      const [main, feature] = await match(alice, ['main', 'feature']);
      expect(main.userCanMerge).toBe(true);
      expect(feature).toMatchObject({ userCanPush: true, userCanMerge: true });
      const [devMain, devFeature] = await match(dev, ['main', 'feature']);
      expect(devMain.userCanMerge).toBe(false);
      expect(devFeature.userCanMerge).toBe(true);
      // bob is on the merge whitelist but only reads the code: Gitea drops such users from a list when saving it.
      const [bobMain, bobFeature] = await match(bob, ['main', 'feature']);
      expect(bobMain.userCanMerge).toBe(false);
      expect(bobFeature).toMatchObject({ userCanPush: false, userCanMerge: false });
    });

    it('is for those who may read the code', async () => {
      await expect(match(stranger, ['main'])).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(match(0, ['main'])).rejects.toMatchObject({ code: Code.NOT_FOUND });
    });
  });
});
