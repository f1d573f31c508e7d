/**
 * TeamService.BatchGetTeams over gRPC on a real database: the teams among the ids asked that exist, each with its
 * organization as the viewer may see it, for callers (the gateway) naming teams repos has already shown them.
 */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { actor, startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

async function createOrg(by: User, name: string, visibility = '') {
  const { org } = await h.orgs.createOrg({
    actor: actor(by),
    ownerId: 0,
    name,
    fullName: '',
    email: `${name}@example.com`,
    description: '',
    website: '',
    location: '',
    visibility,
    repoAdminChangeTeamAccess: false,
  });
  return org!;
}

async function createTeam(by: User, org: string, name: string) {
  const { team } = await h.teams.createTeam({
    actor: actor(by),
    org,
    name,
    description: `${name} team`,
    permission: '',
    units: [],
    unitsMap: { 'repo.code': 'write', 'repo.issues': 'read' },
    includesAllRepositories: false,
    canCreateOrgRepo: true,
  });
  return team!;
}

describe('BatchGetTeams', () => {
  it('answers the existing teams among the ids, of any organization, to a viewer outside them', async () => {
    const owner = await h.createUser('bgt-owner');
    const outsider = await h.createUser('bgt-outsider');
    await createOrg(owner, 'bgt-one');
    await createOrg(owner, 'bgt-two', 'private');
    const devs = await createTeam(owner, 'bgt-one', 'devs');
    const ops = await createTeam(owner, 'bgt-two', 'ops');

    const { teams: found } = await h.teams.batchGetTeams({ viewer: actor(outsider), ids: [ops.id, 999999, devs.id, devs.id] });
    const byName = Object.fromEntries(found.map((team) => [team.name, team]));
    expect(Object.keys(byName).sort()).toEqual(['devs', 'ops']);
    expect(byName.devs).toMatchObject({
      id: devs.id,
      description: 'devs team',
      canCreateOrgRepo: true,
      unitsMap: expect.objectContaining({ 'repo.code': 'write', 'repo.issues': 'read' }),
      organization: { name: 'bgt-one', email: 'bgt-one@example.com' },
    });
    expect(byName.ops.organization).toMatchObject({ name: 'bgt-two', visibility: 'private' });
  });

  it('shapes the organization for an anonymous viewer and answers nothing for no ids', async () => {
    const owner = await h.createUser('bgt-owner2');
    await createOrg(owner, 'bgt-three');
    const team = await createTeam(owner, 'bgt-three', 'writers');
    const { teams: found } = await h.teams.batchGetTeams({ viewer: undefined, ids: [team.id] });
    expect(found).toHaveLength(1);
    expect(found[0].organization?.email).toBe('');
    expect((await h.teams.batchGetTeams({ viewer: undefined, ids: [] })).teams).toEqual([]);
  });
});
