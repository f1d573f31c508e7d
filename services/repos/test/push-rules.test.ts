/**
 * loadPushRules (what RepoService.GetPushPolicy hands git-storage): every rule of the repository in priority
 * order, evaluated for the pusher — whitelists by user and team, force-push allow lists, no deletion of protected
 * branches, signed commits and protected files passed on.
 */
import { BranchProtection, type PushRule } from '@cairn/proto/cairn/repos/v1/repos_service';
import { loadPushRules } from '../src/protection/push-rules';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('loadPushRules', () => {
  let h: ReposHarness;
  let org: number;
  let boss: number;
  let alice: number;
  let dev: number;
  let repo: { id: number; ownerId: number; ownerType: number };

  beforeAll(async () => {
    h = await startReposHarness();
    org = h.accounts.addOrg('acme');
    boss = h.accounts.addUser('boss');
    alice = h.accounts.addUser('alice');
    dev = h.accounts.addUser('dev');
    h.accounts.addMember(h.accounts.ownersTeam(org), boss);
    const devs = h.accounts.addTeam(org, 'Devs');
    h.accounts.addMember(devs, dev);
    const id = await h.insertRepo({ ownerId: org, ownerName: 'acme', ownerIsOrg: true, name: 'app' });
    await h.linkTeam(id, org, devs);
    await h.addCollaborator(id, alice, 'write');
    repo = { id, ownerId: org, ownerType: 1 };
  });

  afterAll(async () => {
    await h?.stop();
  });

  const create = (fields: Partial<BranchProtection>) =>
    h.protections.createBranchProtection({ actor: h.accounts.actor(boss), repoId: repo.id, protection: BranchProtection.fromPartial(fields) });
  const rulesFor = (userId: number): Promise<PushRule[]> => loadPushRules(h.context, repo, { id: userId });

  it('answers no rules for an unprotected repository', async () => {
    await expect(rulesFor(alice)).resolves.toEqual([]);
  });

  describe('with rules', () => {
    beforeAll(async () => {
      await create({
        ruleName: 'main',
        enablePush: true,
        enablePushWhitelist: true,
        pushWhitelistUsernames: ['alice'],
        pushWhitelistTeams: ['Devs'],
        enableForcePush: true,
        enableForcePushAllowlist: true,
        forcePushAllowlistTeams: ['Devs'],
        requireSignedCommits: true,
        protectedFilePatterns: '*.lock;docs/**',
        unprotectedFilePatterns: '*.md',
      });
      await create({ ruleName: 'release/*', enablePush: false, requireSignedCommits: true, priority: 5 });
      await create({ ruleName: 'dev', enablePush: true, enableForcePush: true, priority: 2 });
    });

    it('evaluates each rule for the pusher, in priority order', async () => {
      expect(await rulesFor(alice)).toEqual([
        { ruleName: 'main', canPush: true, canForcePush: false, canDelete: false, requireSignedCommits: true, protectedFilePatterns: '*.lock;docs/**', unprotectedFilePatterns: '*.md' },
        { ruleName: 'dev', canPush: true, canForcePush: true, canDelete: false, requireSignedCommits: false, protectedFilePatterns: '', unprotectedFilePatterns: '' },
        { ruleName: 'release/*', canPush: false, canForcePush: false, canDelete: false, requireSignedCommits: true, protectedFilePatterns: '', unprotectedFilePatterns: '' },
      ]);
    });

    it('counts team membership on the whitelists', async () => {
      const [main] = await rulesFor(dev);
      expect(main).toMatchObject({ ruleName: 'main', canPush: true, canForcePush: true });
    });

    it('does not exempt organization owners from a whitelist', async () => {
      const [main, devRule] = await rulesFor(boss);
      expect(main).toMatchObject({ canPush: false, canForcePush: false });
      expect(devRule).toMatchObject({ canPush: true, canForcePush: true });
    });

    it('asks accounts for teams only when a rule lists teams', async () => {
      const listUserTeams = jest.spyOn(h.accounts.teams, 'listUserTeams');
      try {
        await rulesFor(alice);
        expect(listUserTeams).toHaveBeenCalledWith({ userId: alice, orgId: org });
        await h.protections.updateBranchProtection({
          actor: h.accounts.actor(boss),
          repoId: repo.id,
          ruleName: 'main',
          protection: BranchProtection.fromPartial({}),
          fields: ['push_whitelist_teams', 'force_push_allowlist_teams'],
        });
        listUserTeams.mockClear();
        const [main] = await rulesFor(dev);
        expect(main).toMatchObject({ canPush: false });
        expect(listUserTeams).not.toHaveBeenCalled();
      } finally {
        listUserTeams.mockRestore();
      }
    });
  });
});
