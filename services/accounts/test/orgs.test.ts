/**
 * OrgService and TeamService over gRPC on a real database: organizations in the users namespace, the Owners
 * team and its invariants, membership through teams, what each kind of viewer sees, and the events.
 */
import { decodeEvent } from '@cairn/bus';
import { OrgCreated, OrgMemberAdded, OrgMemberRemoved, OrgRenamed, OrgUpdated, TeamUpdated } from '@cairn/proto/cairn/accounts/v1/events';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { IsMemberResponse_Answer, type Team } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { Code } from '@cairn/rpc';
import { actor, startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

const ANONYMOUS: Actor = { userId: 0, isAdmin: false, isRestricted: false };

function createOrg(by: User, name: string, fields: Partial<Parameters<typeof h.orgs.createOrg>[0]> = {}) {
  return h.orgs.createOrg({
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
    ...fields,
  });
}

function createTeam(by: User, org: string, name: string, fields: Partial<Parameters<typeof h.teams.createTeam>[0]> = {}) {
  return h.teams.createTeam({
    actor: actor(by),
    org,
    name,
    description: '',
    permission: '',
    units: [],
    unitsMap: { 'repo.code': 'read' },
    includesAllRepositories: false,
    canCreateOrgRepo: false,
    ...fields,
  });
}

async function ownersTeam(by: User, org: string): Promise<Team> {
  const { teams: found } = await h.teams.searchTeams({ viewer: actor(by), org, keyword: 'owners', includeDescription: false });
  return found.find((team) => team.name === 'Owners')!;
}

const addMember = (by: User, teamId: number, username: string) => h.teams.addTeamMember({ actor: actor(by), teamId, username });
const removeMember = (by: User, teamId: number, username: string) => h.teams.removeTeamMember({ actor: actor(by), teamId, username });

async function newOutboxRows(change: () => Promise<unknown>) {
  const before = (await h.outbox()).length;
  await change();
  return (await h.outbox()).slice(before);
}

const ALL_UNITS = ['repo.code', 'repo.issues', 'repo.pulls', 'repo.releases', 'repo.wiki', 'repo.ext_wiki', 'repo.ext_issues', 'repo.projects', 'repo.packages', 'repo.actions'];

let admin: User;
let alice: User;
let bob: User;
let carol: User;
let rita: User;

beforeAll(async () => {
  admin = await h.createUser('siteadmin', { isAdmin: true });
  alice = await h.createUser('alice');
  bob = await h.createUser('bob');
  carol = await h.createUser('carol');
  rita = await h.createUser('rita', { restricted: true });
});

describe('CreateOrg', () => {
  it('creates the organization with an Owners team holding its creator, and one event', async () => {
    let created;
    const rows = await newOutboxRows(async () => {
      ({ org: created } = await createOrg(alice, 'Acme', { fullName: 'Acme Inc', email: 'hello@acme.test', location: 'Earth' }));
    });
    expect(created).toMatchObject({ name: 'Acme', fullName: 'Acme Inc', email: 'hello@acme.test', visibility: 'public', repoAdminChangeTeamAccess: false });

    const owners = await ownersTeam(alice, 'acme');
    expect(owners).toMatchObject({
      name: 'Owners',
      permission: 'owner',
      includesAllRepositories: true,
      canCreateOrgRepo: true,
      units: ALL_UNITS,
      unitsMap: Object.fromEntries(ALL_UNITS.map((unit) => [unit, 'owner'])),
    });
    expect(owners.organization).toMatchObject({ id: created!.id, name: 'Acme' });
    const { users } = await h.teams.listTeamMembers({ viewer: actor(alice), teamId: owners.id });
    expect(users.map((u) => u.login)).toEqual(['alice']);

    expect(rows.map((row) => row.subject)).toEqual(['cairn.org.created']);
    const event = decodeEvent(OrgCreated, rows[0].data);
    expect(event).toMatchObject({ ownerId: alice.id, ownersTeamId: owners.id, org: { name: 'Acme', email: 'hello@acme.test' } });
    expect(event.meta).toMatchObject({ eventId: rows[0].id, actorId: alice.id });
  });

  it('shares the users namespace, in any case', async () => {
    await expect(createOrg(alice, 'ACME')).rejects.toMatchObject({ code: Code.ALREADY_EXISTS, message: 'user already exists [name: ACME]' });
    await expect(createOrg(alice, 'Bob')).rejects.toMatchObject({ code: Code.ALREADY_EXISTS, message: 'user already exists [name: Bob]' });
    await expect(
      h.users.createUser({ username: 'acme', email: 'x@example.com', password: 'password-123', fullName: '', loginName: '', sourceId: 0, mustChangePassword: false, restricted: false, visibility: '', isAdmin: false, actorId: 0 }),
    ).rejects.toMatchObject({ code: Code.ALREADY_EXISTS });
  });

  it('refuses reserved and invalid names and unknown visibilities', async () => {
    for (const name of ['api', 'assets', 'admin']) {
      await expect(createOrg(alice, name)).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: `name is reserved [name: ${name}]` });
    }
    await expect(createOrg(alice, 'bad name')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'name_invalid' });
    await expect(createOrg(alice, 'fine', { visibility: 'secret' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'visibility_invalid' });
  });

  it('lets only allowed users create organizations, and only admins for someone else', async () => {
    const dave = await h.createUser('dave');
    await h.users.updateUser({ id: dave.id, actorId: 0, allowCreateOrganization: false });
    await expect(createOrg(dave, 'daves')).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'user is not allowed to create organizations' });
    await expect(createOrg(bob, 'bobs', { ownerId: carol.id })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(h.orgs.createOrg({ ...(await createOrgRequest('anon-org')), actor: ANONYMOUS })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    const { org } = await createOrg(admin, 'carols', { ownerId: carol.id });
    expect((await h.orgs.getOrgPermissions({ viewer: actor(admin), username: 'carol', org: org!.name })).isOwner).toBe(true);
  });
});

async function createOrgRequest(name: string) {
  return { actor: actor(alice), ownerId: 0, name, fullName: '', email: '', description: '', website: '', location: '', visibility: '', repoAdminChangeTeamAccess: false };
}

describe('visibility', () => {
  // pub / lim / priv, each owned by alice; bob is in a "devs" team of each; rita (restricted) in lim's devs.
  beforeAll(async () => {
    for (const [name, visibility] of [
      ['vis-pub', 'public'],
      ['vis-lim', 'limited'],
      ['vis-priv', 'private'],
    ]) {
      await createOrg(alice, name, { visibility, email: `${name}@example.com` });
      const { team } = await createTeam(alice, name, 'devs');
      await addMember(alice, team!.id, 'bob');
      if (name === 'vis-lim') await addMember(alice, team!.id, 'rita');
    }
  });

  const visibleTo = async (viewer: Actor) => {
    const seen: string[] = [];
    for (const name of ['vis-pub', 'vis-lim', 'vis-priv']) {
      try {
        await h.orgs.getOrg({ viewer, name });
        seen.push(name);
      } catch (error) {
        expect(error).toMatchObject({ code: Code.NOT_FOUND, reason: 'org_not_found' });
      }
    }
    return seen;
  };

  it('answers GetOrg per viewer, invisible as missing', async () => {
    expect(await visibleTo(ANONYMOUS)).toEqual(['vis-pub']);
    expect(await visibleTo(actor(carol))).toEqual(['vis-pub', 'vis-lim']);
    expect(await visibleTo(actor(bob))).toEqual(['vis-pub', 'vis-lim', 'vis-priv']);
    expect(await visibleTo(actor(rita))).toEqual(['vis-lim']);
    expect(await visibleTo(actor(admin))).toEqual(['vis-pub', 'vis-lim', 'vis-priv']);
  });

  it('blanks the e-mail for anonymous viewers', async () => {
    expect((await h.orgs.getOrg({ viewer: ANONYMOUS, name: 'vis-pub' })).org!.email).toBe('');
    expect((await h.orgs.getOrg({ viewer: actor(carol), name: 'vis-pub' })).org!.email).toBe('vis-pub@example.com');
  });

  it('lists and counts only what the viewer may see', async () => {
    const listed = async (viewer: Actor) => {
      const { orgs: found, total } = await h.orgs.listOrgs({ viewer, page: { page: 1, limit: 50 } });
      const names = found.map((org) => org.name).filter((name) => name.startsWith('vis-'));
      return { names, total, all: found.length };
    };
    const anonymous = await listed(ANONYMOUS);
    expect(anonymous.names).toEqual(['vis-pub']);
    expect(anonymous.total).toBe(anonymous.all);
    expect((await listed(actor(carol))).names).toEqual(['vis-lim', 'vis-pub']);
    expect((await listed(actor(bob))).names).toEqual(['vis-lim', 'vis-priv', 'vis-pub']);
    const restricted = await listed(actor(rita));
    expect(restricted).toEqual({ names: ['vis-lim'], total: 1, all: 1 });
    const everything = await listed(actor(admin));
    expect(everything.names).toEqual(['vis-lim', 'vis-priv', 'vis-pub']);

    const firstPage = await h.orgs.listOrgs({ viewer: ANONYMOUS, page: { page: 1, limit: 1 } });
    expect(firstPage.orgs).toHaveLength(1);
    expect(firstPage.total).toBe(anonymous.total);
  });

  it("lists a user's organizations: all to themself, public memberships of visible organizations to others", async () => {
    const names = async (viewer: Actor, username: string) =>
      (await h.orgs.listUserOrgs({ viewer, username })).orgs.map((org) => org.name).filter((name) => name.startsWith('vis-'));
    expect(await names(actor(bob), 'bob')).toEqual(['vis-lim', 'vis-priv', 'vis-pub']);
    expect(await names(actor(admin), 'bob')).toEqual(['vis-lim', 'vis-priv', 'vis-pub']);
    expect(await names(actor(carol), 'bob')).toEqual([]);

    for (const org of ['vis-pub', 'vis-lim', 'vis-priv']) {
      await h.orgs.setMemberPublic({ actor: actor(bob), org, username: 'bob', public: true });
    }
    expect(await names(ANONYMOUS, 'bob')).toEqual(['vis-pub']);
    expect(await names(actor(carol), 'bob')).toEqual(['vis-lim', 'vis-pub']);
    expect(await names(actor(rita), 'bob')).toEqual(['vis-lim']);
    const { total } = await h.orgs.listUserOrgs({ viewer: actor(carol), username: 'bob' });
    expect(total).toBe(2);
  });

  it('lists members fully to members, public members of visible users to others', async () => {
    const logins = async (viewer: Actor, org: string, publicOnly = false) => {
      const { users, total } = await h.orgs.listMembers({ viewer, org, publicOnly });
      expect(total).toBe(users.length);
      return users.map((user) => user.login);
    };
    await h.orgs.setMemberPublic({ actor: actor(alice), org: 'vis-lim', username: 'alice', public: false });
    expect(await logins(actor(bob), 'vis-lim')).toEqual(['alice', 'bob', 'rita']);
    expect(await logins(actor(carol), 'vis-lim')).toEqual(['bob']);
    expect(await logins(actor(bob), 'vis-lim', true)).toEqual(['bob']);
    await expect(h.orgs.listMembers({ viewer: ANONYMOUS, org: 'vis-lim', publicOnly: true })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect(await logins(ANONYMOUS, 'vis-pub', true)).toEqual(['bob']);
  });

  it('shows a restricted member only team mates and public members', async () => {
    const { team } = await createTeam(alice, 'vis-lim', 'loners');
    await addMember(alice, team!.id, 'carol');
    const { users } = await h.orgs.listMembers({ viewer: actor(rita), org: 'vis-lim', publicOnly: false });
    expect(users.map((u) => u.login)).toEqual(['bob', 'rita']);
  });

  it('shapes listed users for the viewer', async () => {
    const [listed] = (await h.orgs.listMembers({ viewer: ANONYMOUS, org: 'vis-pub', publicOnly: true })).users;
    expect(listed.login).toBe('bob');
    expect(listed.email).toMatch(/^\d+\+bob@noreply\./);
  });
});

describe('IsMember', () => {
  beforeAll(async () => {
    await createOrg(alice, 'club');
  });

  it('answers members fully, sends others to the public check', async () => {
    const ask = async (viewer: Actor, username: string, publicOnly = false) =>
      (await h.orgs.isMember({ viewer, org: 'club', username, publicOnly })).answer;
    expect(await ask(actor(alice), 'alice')).toBe(IsMemberResponse_Answer.ANSWER_MEMBER);
    expect(await ask(actor(alice), 'bob')).toBe(IsMemberResponse_Answer.ANSWER_NOT_MEMBER);
    expect(await ask(actor(admin), 'alice')).toBe(IsMemberResponse_Answer.ANSWER_MEMBER);
    expect(await ask(actor(bob), 'bob')).toBe(IsMemberResponse_Answer.ANSWER_NOT_MEMBER);
    expect(await ask(actor(bob), 'alice')).toBe(IsMemberResponse_Answer.ANSWER_ASK_PUBLIC);
    expect(await ask(ANONYMOUS, 'alice')).toBe(IsMemberResponse_Answer.ANSWER_ASK_PUBLIC);
    expect(await ask(ANONYMOUS, 'alice', true)).toBe(IsMemberResponse_Answer.ANSWER_NOT_MEMBER);
    await h.orgs.setMemberPublic({ actor: actor(alice), org: 'club', username: 'alice', public: true });
    expect(await ask(ANONYMOUS, 'alice', true)).toBe(IsMemberResponse_Answer.ANSWER_MEMBER);
    await expect(ask(actor(alice), 'nobody')).rejects.toMatchObject({ code: Code.NOT_FOUND, message: 'user does not exist [uid: 0, name: nobody]' });
  });

  it('lets members publicize themselves, owners anyone', async () => {
    const { team } = await createTeam(alice, 'club', 'crew');
    await addMember(alice, team!.id, 'bob');
    await addMember(alice, team!.id, 'carol');
    await expect(h.orgs.setMemberPublic({ actor: actor(bob), org: 'club', username: 'carol', public: true })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: 'Cannot publicize another member',
    });
    await expect(h.orgs.setMemberPublic({ actor: actor(rita), org: 'club', username: 'rita', public: true })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await h.orgs.setMemberPublic({ actor: actor(bob), org: 'club', username: 'bob', public: true });
    await h.orgs.setMemberPublic({ actor: actor(alice), org: 'club', username: 'carol', public: true });
    const { users } = await h.orgs.listMembers({ viewer: ANONYMOUS, org: 'club', publicOnly: true });
    expect(users.map((u) => u.login)).toEqual(['alice', 'bob', 'carol']);
  });
});

describe('teams', () => {
  beforeAll(async () => {
    await createOrg(alice, 'teamco');
  });

  it('creates unit teams with permission none and admin teams over every unit', async () => {
    const { team } = await createTeam(alice, 'teamco', 'writers', {
      permission: 'write',
      unitsMap: { 'repo.code': 'write', 'repo.issues': 'read', 'repo.wiki': 'none' },
      description: 'They write',
      canCreateOrgRepo: true,
    });
    expect(team).toMatchObject({
      name: 'writers',
      description: 'They write',
      permission: 'none',
      units: ['repo.code', 'repo.issues', 'repo.wiki'],
      unitsMap: { 'repo.code': 'write', 'repo.issues': 'read', 'repo.wiki': 'none' },
      canCreateOrgRepo: true,
      includesAllRepositories: false,
    });
    const legacy = (await createTeam(alice, 'teamco', 'legacy', { permission: 'write', units: ['repo.code', 'repo.pulls'], unitsMap: {} })).team!;
    expect(legacy.unitsMap).toEqual({ 'repo.code': 'write', 'repo.pulls': 'write' });
    const admins = (await createTeam(alice, 'teamco', 'admins', { permission: 'admin', unitsMap: {} })).team!;
    expect(admins).toMatchObject({ permission: 'admin', units: ALL_UNITS, unitsMap: Object.fromEntries(ALL_UNITS.map((u) => [u, 'admin'])) });
  });

  it('refuses teams without units, duplicate and reserved names', async () => {
    await expect(createTeam(alice, 'teamco', 'empty', { permission: 'read', unitsMap: {} })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      reason: 'team_units_empty',
      message: 'units permission should not be empty',
    });
    await expect(createTeam(alice, 'teamco', 'WRITERS')).rejects.toMatchObject({ code: Code.ALREADY_EXISTS, message: expect.stringMatching(/^team already exists \[org_id: \d+, name: writers\]$/) });
    await expect(createTeam(alice, 'teamco', 'owners')).rejects.toMatchObject({ code: Code.ALREADY_EXISTS });
    await expect(createTeam(alice, 'teamco', 'new')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'name is reserved [name: new]' });
  });

  it('lets only owners and admins manage teams, members read them', async () => {
    const { team } = await createTeam(alice, 'teamco', 'readers');
    await addMember(alice, team!.id, 'bob');
    await expect(createTeam(bob, 'teamco', 'mine')).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'Must be an organization owner' });
    await expect(createTeam(carol, 'teamco', 'mine')).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'Must be an organization owner' });
    await expect(h.teams.listTeams({ viewer: actor(carol), org: 'teamco' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'Must be an organization member' });
    const listed = await h.teams.listTeams({ viewer: actor(bob), org: 'teamco' });
    expect(listed.teams.map((t) => t.name)).toEqual(['admins', 'legacy', 'Owners', 'readers', 'writers']);
    expect(listed.total).toBe(5);
    const owners = await ownersTeam(alice, 'teamco');
    await expect(h.teams.getTeam({ viewer: actor(bob), id: owners.id })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'Must be a team member' });
    await expect(h.teams.getTeam({ viewer: actor(carol), id: owners.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect((await h.teams.getTeam({ viewer: actor(bob), id: team!.id })).team!.name).toBe('readers');
    await expect(h.teams.updateTeam({ actor: actor(bob), id: team!.id, permission: '', units: [], unitsMap: {}, description: 'x' })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: 'Must be an organization owner',
    });
    expect((await h.teams.getTeam({ viewer: actor(admin), id: team!.id })).team!.name).toBe('readers');
  });

  it('searches all teams for admins, own teams for others', async () => {
    const names = async (viewer: Actor, keyword: string) => (await h.teams.searchTeams({ viewer, org: 'teamco', keyword, includeDescription: true })).teams.map((t) => t.name);
    expect(await names(actor(admin), 'write')).toEqual(['writers']);
    expect(await names(actor(admin), 'THEY')).toEqual(['writers']);
    expect(await names(actor(alice), '')).toEqual(['Owners']);
    expect(await names(actor(bob), '')).toEqual(['readers']);
  });

  it('changes only the fields an edit supplies, as Gitea', async () => {
    const { team: before } = await createTeam(alice, 'teamco', 'editable', { description: 'keep me', unitsMap: { 'repo.code': 'read' }, canCreateOrgRepo: true });
    const edit = (fields: Partial<Parameters<typeof h.teams.updateTeam>[0]>) =>
      h.teams.updateTeam({ actor: actor(alice), id: before!.id, permission: '', units: [], unitsMap: {}, ...fields });

    const renamed = (await edit({ name: 'edited' })).team!;
    expect(renamed).toMatchObject({ name: 'edited', description: 'keep me', unitsMap: { 'repo.code': 'read' }, canCreateOrgRepo: true, permission: 'none' });

    // includes_all_repositories needs a permission with it.
    expect((await edit({ includesAllRepositories: true })).team!.includesAllRepositories).toBe(false);
    const rows = await newOutboxRows(async () => {
      expect((await edit({ permission: 'read', includesAllRepositories: true, unitsMap: { 'repo.issues': 'write' } })).team).toMatchObject({
        includesAllRepositories: true,
        unitsMap: { 'repo.issues': 'write' },
        description: 'keep me',
        name: 'edited',
      });
    });
    expect(rows.map((r) => r.subject)).toEqual(['cairn.team.updated']);
    expect(decodeEvent(TeamUpdated, rows[0].data).changed).toEqual(['units', 'includes_all_repositories']);

    expect((await edit({ description: '' })).team).toMatchObject({ description: '', name: 'edited' });
    expect((await edit({ permission: 'admin' })).team).toMatchObject({ permission: 'admin', units: ALL_UNITS });
    expect(await newOutboxRows(() => edit({}))).toEqual([]);
    await expect(edit({ name: 'writers' })).rejects.toMatchObject({ code: Code.ALREADY_EXISTS });
  });

  it('keeps the Owners team as it is', async () => {
    const owners = await ownersTeam(alice, 'teamco');
    const { team } = await h.teams.updateTeam({
      actor: actor(alice),
      id: owners.id,
      name: 'Bosses',
      permission: 'read',
      units: [],
      unitsMap: { 'repo.code': 'read' },
      canCreateOrgRepo: false,
      includesAllRepositories: false,
      description: 'The owners',
    });
    expect(team).toMatchObject({ name: 'Owners', permission: 'owner', canCreateOrgRepo: true, includesAllRepositories: true, description: 'The owners' });
    await expect(h.teams.deleteTeam({ actor: actor(alice), id: owners.id })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      message: 'the Owners team cannot be deleted',
    });
  });
});

describe('membership through teams', () => {
  let owners: Team;
  let crew: Team;
  let other: Team;

  beforeAll(async () => {
    await createOrg(alice, 'memberco');
    owners = await ownersTeam(alice, 'memberco');
    crew = (await createTeam(alice, 'memberco', 'crew')).team!;
    other = (await createTeam(alice, 'memberco', 'other')).team!;
  });

  const isMember = async (username: string) =>
    (await h.orgs.isMember({ viewer: actor(admin), org: 'memberco', username, publicOnly: false })).answer === IsMemberResponse_Answer.ANSWER_MEMBER;

  it('joins the organization with the first team and leaves it with the last', async () => {
    let rows = await newOutboxRows(() => addMember(alice, crew.id, 'bob'));
    expect(rows.map((r) => r.subject)).toEqual(['cairn.org_member.added', 'cairn.team_member.added']);
    expect(decodeEvent(OrgMemberAdded, rows[0].data)).toMatchObject({ userId: bob.id, isPublic: false });
    expect(await newOutboxRows(() => addMember(alice, crew.id, 'bob'))).toEqual([]);
    await addMember(alice, other.id, 'bob');
    expect(await isMember('bob')).toBe(true);

    await removeMember(alice, crew.id, 'bob');
    expect(await isMember('bob')).toBe(true);
    rows = await newOutboxRows(() => removeMember(alice, other.id, 'bob'));
    expect(rows.map((r) => r.subject)).toEqual(['cairn.team_member.removed', 'cairn.org_member.removed']);
    expect(decodeEvent(OrgMemberRemoved, rows[1].data)).toMatchObject({ userId: bob.id });
    expect(await isMember('bob')).toBe(false);
    expect(await newOutboxRows(() => removeMember(alice, other.id, 'bob'))).toEqual([]);
  });

  it('never lets the Owners team lose its last member', async () => {
    await expect(removeMember(alice, owners.id, 'alice')).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      message: `user is the last member of owner team [uid: ${alice.id}]`,
    });
    await expect(h.orgs.removeMember({ actor: actor(alice), org: 'memberco', username: 'alice' })).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });
    await addMember(alice, owners.id, 'carol');
    await removeMember(carol, owners.id, 'alice');
    expect(await isMember('alice')).toBe(false);
    await expect(h.orgs.removeMember({ actor: actor(carol), org: 'memberco', username: 'carol' })).rejects.toMatchObject({
      message: `user is the last member of owner team [uid: ${carol.id}]`,
    });
  });

  it('removes a member from every team', async () => {
    await addMember(carol, crew.id, 'bob');
    await addMember(carol, other.id, 'bob');
    await h.orgs.removeMember({ actor: actor(carol), org: 'memberco', username: 'bob' });
    expect(await isMember('bob')).toBe(false);
    expect((await h.teams.listTeamMembers({ viewer: actor(carol), teamId: crew.id })).users).toEqual([]);
    await expect(h.orgs.removeMember({ actor: actor(bob), org: 'memberco', username: 'carol' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
  });

  it('drops members left without a team when a team is deleted', async () => {
    await addMember(carol, crew.id, 'bob');
    await h.teams.deleteTeam({ actor: actor(carol), id: crew.id });
    expect(await isMember('bob')).toBe(false);
    await expect(h.teams.getTeam({ viewer: actor(carol), id: crew.id })).rejects.toMatchObject({ code: Code.NOT_FOUND, reason: 'team_not_found' });
  });

  it('answers a team member lookup', async () => {
    const { user } = await h.teams.getTeamMember({ viewer: actor(carol), teamId: owners.id, username: 'carol' });
    expect(user!.login).toBe('carol');
    await expect(h.teams.getTeamMember({ viewer: actor(carol), teamId: owners.id, username: 'bob' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });
});

describe('ListUserTeams', () => {
  const EXTERNAL_UNITS = ['repo.ext_wiki', 'repo.ext_issues'];
  const unitsAt = (mode: string) => Object.fromEntries(ALL_UNITS.map((unit) => [unit, EXTERNAL_UNITS.includes(unit) ? 'read' : mode]));
  let grantco: number;
  let otherco: number;
  let devs: Team;
  // In no team of the other tests.
  let gina: User;

  beforeAll(async () => {
    gina = await h.createUser('gina');
    grantco = (await createOrg(alice, 'grantco')).org!.id;
    otherco = (await createOrg(carol, 'otherco')).org!.id;
    devs = (await createTeam(alice, 'grantco', 'devs', { unitsMap: { 'repo.code': 'write', 'repo.issues': 'read' }, includesAllRepositories: true })).team!;
    const admins = (await createTeam(alice, 'grantco', 'Admins', { permission: 'admin', canCreateOrgRepo: true })).team!;
    const readers = (await createTeam(carol, 'otherco', 'readers', { permission: 'read', units: ['repo.wiki'], unitsMap: {} })).team!;
    await addMember(alice, devs.id, 'gina');
    await addMember(alice, admins.id, 'gina');
    await addMember(carol, readers.id, 'gina');
  });

  it("answers every team of the user in the organization with the stored modes, by name", async () => {
    const { teams: granted } = await h.teamsForRepos.listUserTeams({ userId: gina.id, orgId: grantco });
    expect(granted).toEqual([
      {
        teamId: expect.any(Number),
        orgId: grantco,
        name: 'Admins',
        permission: 'admin',
        includesAllRepositories: false,
        canCreateOrgRepo: true,
        unitsMap: unitsAt('admin'),
      },
      {
        teamId: devs.id,
        orgId: grantco,
        name: 'devs',
        permission: 'none',
        includesAllRepositories: true,
        canCreateOrgRepo: false,
        unitsMap: { 'repo.code': 'write', 'repo.issues': 'read' },
      },
    ]);
  });

  it('reports the Owners team as owner', async () => {
    const { teams: granted } = await h.teamsForRepos.listUserTeams({ userId: alice.id, orgId: grantco });
    expect(granted).toEqual([
      expect.objectContaining({ name: 'Owners', permission: 'owner', includesAllRepositories: true, canCreateOrgRepo: true, unitsMap: unitsAt('owner') }),
    ]);
  });

  it('answers the teams of every organization for org 0', async () => {
    const { teams: granted } = await h.teamsForRepos.listUserTeams({ userId: gina.id, orgId: 0 });
    expect(granted.map((team) => [team.orgId, team.name, team.unitsMap])).toEqual([
      [grantco, 'Admins', unitsAt('admin')],
      [grantco, 'devs', { 'repo.code': 'write', 'repo.issues': 'read' }],
      [otherco, 'readers', { 'repo.wiki': 'read' }],
    ]);
  });

  it('answers no teams for a non-member, and follows membership changes', async () => {
    expect(await h.teamsForRepos.listUserTeams({ userId: rita.id, orgId: grantco })).toEqual({ teams: [] });
    expect(await h.teamsForRepos.listUserTeams({ userId: 0, orgId: 0 })).toEqual({ teams: [] });
    await removeMember(alice, devs.id, 'gina');
    const { teams: granted } = await h.teamsForRepos.listUserTeams({ userId: gina.id, orgId: grantco });
    expect(granted.map((team) => team.name)).toEqual(['Admins']);
  });
});

describe('permissions, rename and delete', () => {
  beforeAll(async () => {
    await createOrg(alice, 'permco');
  });

  it('reports what a user may do in an organization', async () => {
    const { team } = await createTeam(alice, 'permco', 'makers', { canCreateOrgRepo: true });
    await addMember(alice, team!.id, 'bob');
    const perms = (username: string) => h.orgs.getOrgPermissions({ viewer: actor(alice), username, org: 'permco' });
    expect(await perms('alice')).toEqual({ isOwner: true, isAdmin: true, canWrite: true, canRead: true, canCreateRepository: true });
    // A team made through the API has mode none: Gitea reports no read either.
    expect(await perms('bob')).toEqual({ isOwner: false, isAdmin: false, canWrite: false, canRead: false, canCreateRepository: true });
    expect(await perms('carol')).toEqual({ isOwner: false, isAdmin: false, canWrite: false, canRead: false, canCreateRepository: false });
  });

  it('updates only the given fields', async () => {
    const { org } = await h.orgs.updateOrg({ actor: actor(alice), org: 'permco', location: 'Mars', visibility: '' });
    expect(org).toMatchObject({ location: 'Mars', visibility: 'public' });
    expect((await h.orgs.updateOrg({ actor: actor(alice), org: 'permco', visibility: 'limited' })).org).toMatchObject({ location: 'Mars', visibility: 'limited' });
    await expect(h.orgs.updateOrg({ actor: actor(alice), org: 'permco', visibility: 'hidden' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(h.orgs.updateOrg({ actor: actor(bob), org: 'permco', location: 'x' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(h.orgs.updateOrg({ actor: ANONYMOUS, org: 'permco', location: 'x' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('renames, leaving the old name as a redirect', async () => {
    const rows = await newOutboxRows(async () => {
      await h.orgs.updateOrg({ actor: actor(alice), org: 'permco', location: 'Venus' });
      await h.orgs.renameOrg({ actor: actor(alice), org: 'permco', newName: 'PermCo2' });
    });
    expect(rows.map((r) => r.subject)).toEqual(['cairn.org.updated', 'cairn.org.renamed']);
    // Each change's event carries the organization's version after it, so consumers can order them.
    const updated = decodeEvent(OrgUpdated, rows[0].data);
    const renamed = decodeEvent(OrgRenamed, rows[1].data);
    expect(updated.version).toBeGreaterThan(0);
    expect(renamed).toMatchObject({ newName: 'PermCo2', version: updated.version + 1 });
    await expect(h.orgs.getOrg({ viewer: actor(alice), name: 'permco' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect((await h.orgs.getOrg({ viewer: actor(alice), name: 'permco2' })).org!.name).toBe('PermCo2');
    expect(await h.users.resolveName({ name: 'permco', viewer: actor(alice) })).toMatchObject({ name: 'PermCo2', redirect: true });
    await expect(h.orgs.renameOrg({ actor: actor(alice), org: 'permco2', newName: 'alice' })).rejects.toMatchObject({ code: Code.ALREADY_EXISTS });
    await expect(h.orgs.renameOrg({ actor: actor(alice), org: 'permco2', newName: 'api' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    // A new account may take the old name.
    await createOrg(alice, 'permco');
    expect(await h.users.resolveName({ name: 'permco', viewer: actor(alice) })).toMatchObject({ name: 'permco', redirect: false });
  });

  it('deletes a member of organizations only with purge, deleting the organizations they alone own', async () => {
    const erin = await h.createUser('erin');
    const frank = await h.createUser('frank');
    await createOrg(erin, 'erins');
    await createOrg(frank, 'shared');
    const owners = await ownersTeam(frank, 'shared');
    await addMember(frank, owners.id, 'erin');
    await expect(h.users.deleteUser({ id: erin.id, actorId: admin.id, purge: false })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      message: `user still has membership of organizations [uid: ${erin.id}]`,
    });
    const rows = await newOutboxRows(() => h.users.deleteUser({ id: erin.id, actorId: admin.id, purge: true }));
    expect(rows.map((r) => r.subject)).toEqual(['cairn.org.deleted', 'cairn.org_member.removed', 'cairn.user.deleted']);
    await expect(h.orgs.getOrg({ viewer: actor(admin), name: 'erins' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    const { users } = await h.teams.listTeamMembers({ viewer: actor(frank), teamId: owners.id });
    expect(users.map((u) => u.login)).toEqual(['frank']);
  });

  it('deletes an organization with its teams and memberships', async () => {
    const { team } = await createTeam(alice, 'permco2', 'gone');
    const rows = await newOutboxRows(() => h.orgs.deleteOrg({ actor: actor(alice), org: 'permco2' }));
    expect(rows.map((r) => r.subject)).toEqual(['cairn.org.deleted']);
    await expect(h.orgs.getOrg({ viewer: actor(admin), name: 'permco2' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(h.teams.getTeam({ viewer: actor(admin), id: team!.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    const { rows: left } = await h.sql.query('SELECT count(*)::int AS n FROM team_users WHERE team_id = $1', [team!.id]);
    expect(left[0].n).toBe(0);
  });
});
