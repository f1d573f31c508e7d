/**
 * Deleting an owner of repositories, with a fake repos service (a real gRPC server): as Gitea, a user or an
 * organization that owns repositories is refused (FAILED_PRECONDITION, reason owner_has_repositories) and nothing
 * changes; a purge deletes the user's repositories and those of the organizations they are the last owner of
 * through repos, as the site administrator, before the user goes.
 */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { Code } from '@cairn/rpc';
import { actor, startHarness, type Harness } from './harness';

let h: Harness;
let admin: User;

async function createOrg(by: User, name: string): Promise<number> {
  const { org } = await h.orgs.createOrg({
    actor: actor(by),
    ownerId: 0,
    name,
    fullName: '',
    email: '',
    description: '',
    website: '',
    location: '',
    visibility: '',
    repoAdminChangeTeamAccess: false,
  });
  return org!.id;
}

async function addOwner(by: User, org: string, username: string): Promise<void> {
  const { teams: found } = await h.teams.searchTeams({ viewer: actor(by), org, keyword: 'owners', includeDescription: false });
  await h.teams.addTeamMember({ actor: actor(by), teamId: found.find((team) => team.name === 'Owners')!.id, username });
}

async function outboxSubjects(): Promise<string[]> {
  return (await h.outbox()).map((row) => row.subject);
}

const userExists = (id: number) => h.users.getUser({ id, viewer: actor(admin) }).then(
  () => true,
  (error: { code?: number }) => (error.code === Code.NOT_FOUND ? false : Promise.reject(error)),
);

beforeAll(async () => {
  h = await startHarness();
  admin = await h.createUser('root', { isAdmin: true });
});

afterAll(async () => {
  await h?.stop();
});

beforeEach(() => {
  h.repos.calls.length = 0;
});

describe('DeleteUser of an owner of repositories', () => {
  it("refuses without purge with Gitea's message, changing nothing", async () => {
    const owner = await h.createUser('keeper');
    h.repos.add(owner.id);
    const before = await outboxSubjects();
    await expect(h.users.deleteUser({ id: owner.id, actorId: admin.id, purge: false })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      reason: 'owner_has_repositories',
      message: `user still has ownership of repositories [uid: ${owner.id}]`,
    });
    expect(await userExists(owner.id)).toBe(true);
    expect(await outboxSubjects()).toEqual(before);
    expect(h.repos.ownedBy(owner.id)).toHaveLength(1);
    expect(h.repos.calls).toEqual([{ rpc: 'count', ownerId: owner.id }]);
  });

  it('checks repositories before organization membership, as Gitea', async () => {
    const member = await h.createUser('both');
    await createOrg(member, 'both-org');
    const repo = h.repos.add(member.id);
    await expect(h.users.deleteUser({ id: member.id, actorId: admin.id, purge: false })).rejects.toMatchObject({ reason: 'owner_has_repositories' });
    h.repos.remove(repo);
    await expect(h.users.deleteUser({ id: member.id, actorId: admin.id, purge: false })).rejects.toMatchObject({ reason: 'user_has_orgs' });
    expect(await userExists(member.id)).toBe(true);
  });

  it('deletes a user without repositories, after asking', async () => {
    const plain = await h.createUser('plain');
    await h.users.deleteUser({ id: plain.id, actorId: admin.id, purge: false });
    expect(await userExists(plain.id)).toBe(false);
    expect(h.repos.calls).toEqual([{ rpc: 'count', ownerId: plain.id }]);
  });

  it('with purge, deletes the repositories of the user and of the organizations they alone own as the admin, then the user', async () => {
    const erin = await h.createUser('erin');
    const frank = await h.createUser('frank');
    const own = [h.repos.add(erin.id), h.repos.add(erin.id), h.repos.add(erin.id)];
    const alone = await createOrg(erin, 'erin-alone');
    const aloneRepo = h.repos.add(alone);
    const shared = await createOrg(erin, 'erin-shared');
    await addOwner(erin, 'erin-shared', 'frank');
    const sharedRepo = h.repos.add(shared);
    const unrelated = h.repos.add(frank.id);

    await h.users.deleteUser({ id: erin.id, actorId: admin.id, purge: true });

    expect(await userExists(erin.id)).toBe(false);
    expect(h.repos.ownedBy(erin.id)).toEqual([]);
    expect(h.repos.ownedBy(alone)).toEqual([]);
    // An organization with another owner keeps its repositories (and the organization).
    expect(h.repos.ownedBy(shared)).toEqual([sharedRepo]);
    expect(h.repos.ownedBy(frank.id)).toEqual([unrelated]);
    const deleted = h.repos.calls.filter((call) => call.rpc === 'delete');
    expect(deleted.map((call) => call.id).sort((a, b) => a! - b!)).toEqual([...own, aloneRepo].sort((a, b) => a - b));
    for (const call of [...deleted, ...h.repos.calls.filter((c) => c.rpc === 'list')]) {
      expect(call.actor).toEqual({ userId: admin.id, isAdmin: true, isRestricted: false });
    }
    await expect(h.orgs.getOrg({ viewer: actor(admin), name: 'erin-alone' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(h.orgs.getOrg({ viewer: actor(admin), name: 'erin-shared' })).resolves.toHaveProperty('org.id', shared);
  });

  it('deletes nothing through repos for an organization id or an unknown id', async () => {
    const owner = await h.createUser('orgmaker');
    const org = await createOrg(owner, 'not-a-user');
    const repo = h.repos.add(org);
    await expect(h.users.deleteUser({ id: org, actorId: admin.id, purge: true })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(h.users.deleteUser({ id: 987_654, actorId: admin.id, purge: true })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect(h.repos.ownedBy(org)).toEqual([repo]);
    expect(h.repos.calls).toEqual([]);
  });
});

describe('DeleteOrg of an owner of repositories', () => {
  it("refuses while the organization owns repositories, with Gitea's message, then deletes it once they are gone", async () => {
    const owner = await h.createUser('orgowner');
    const org = await createOrg(owner, 'busy-org');
    const repo = h.repos.add(org);
    const before = await outboxSubjects();
    await expect(h.orgs.deleteOrg({ actor: actor(owner), org: 'busy-org' })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      reason: 'owner_has_repositories',
      message: `user still has ownership of repositories [uid: ${org}]`,
    });
    expect(await outboxSubjects()).toEqual(before);
    await expect(h.orgs.getOrg({ viewer: actor(owner), name: 'busy-org' })).resolves.toHaveProperty('org.id', org);

    h.repos.remove(repo);
    await h.orgs.deleteOrg({ actor: actor(owner), org: 'busy-org' });
    await expect(h.orgs.getOrg({ viewer: actor(admin), name: 'busy-org' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect((await outboxSubjects()).slice(before.length)).toEqual(['cairn.org.deleted']);
  });

  it('answers who may not delete the organization as before, without asking repos', async () => {
    const owner = await h.createUser('guarded');
    const stranger = await h.createUser('stranger');
    const org = await createOrg(owner, 'guarded-org');
    h.repos.add(org);
    await expect(h.orgs.deleteOrg({ actor: actor(stranger), org: 'guarded-org' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    expect(h.repos.calls).toEqual([]);
  });
});
