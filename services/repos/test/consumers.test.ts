/**
 * repos' consumers on a real database: accounts' events keep owner names and visibility current, drop deleted
 * teams' links and take deleted owners' repositories along (once per event); git pushes refresh a repository's
 * emptiness, size and default branch.
 */
import { encodeEvent, uuidv7, type BusHandler, type EventEncoder } from '@cairn/bus';
import { sql, z } from '@cairn/db';
import { OrgUpdated, TeamDeleted, UserDeleted, UserRenamed, UserUpdated } from '@cairn/proto/cairn/accounts/v1/events';
import { Organization } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { EventMeta } from '@cairn/proto/cairn/common/v1/common';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { Code } from '@cairn/rpc';
import { accountsEventHandler } from '../src/events/accounts-consumer';
import { gitPushedHandler } from '../src/events/git-consumer';
import { purgeDueRepositories } from '../src/maintenance/purge-repositories';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('consumers', () => {
  let h: ReposHarness;
  let accounts: BusHandler;
  let git: BusHandler;
  let alice: number;
  let bob: number;
  let acme: number;

  beforeAll(async () => {
    h = await startReposHarness();
    accounts = accountsEventHandler(h.context, 'repos-accounts-test');
    git = gitPushedHandler(h.context);
    alice = h.accounts.addUser('alice');
    bob = h.accounts.addUser('bob');
    acme = h.accounts.addOrg('acme', { owners: [alice] });
  });

  afterAll(async () => {
    await h?.stop();
  });

  const meta = (): EventMeta => ({ eventId: uuidv7(), occurredAt: new Date(), actorId: 0, repoId: 0 });
  const deliver = <T>(handler: BusHandler, subject: string, type: EventEncoder<T>, event: T, id = uuidv7()) =>
    handler({ id, subject, data: encodeEvent(type, event), deliveryCount: 1 });
  const get = (viewerId: number | undefined, owner: string, name: string) =>
    h.repos.getRepository({ viewer: viewerId === undefined ? undefined : h.accounts.actor(viewerId), id: 0, owner, name });

  it("records an owner's new name on their repositories", async () => {
    const { repository } = await h.create(bob, { name: 'renamed-owner' });
    h.accounts.rename(bob, 'robert');
    await deliver(accounts, 'cairn.user.renamed', UserRenamed, { meta: meta(), user: User.fromPartial({ id: bob, login: 'robert' }), oldLogin: 'bob', version: 0 });
    expect((await get(undefined, 'robert', 'renamed-owner')).repository?.repository).toMatchObject({ id: repository.id, ownerName: 'robert' });
    // The former owner name still leads there.
    expect(await get(undefined, 'bob', 'renamed-owner')).toEqual({ redirect: { owner: 'robert', name: 'renamed-owner' } });
  });

  it("follows an organization's visibility", async () => {
    await h.create(alice, { owner: 'acme', name: 'site' });
    expect(await get(undefined, 'acme', 'site')).toHaveProperty('repository');
    h.accounts.setVisibility(acme, 'private');
    await deliver(accounts, 'cairn.org.updated', OrgUpdated, {
      meta: meta(),
      org: Organization.fromPartial({ id: acme, name: 'acme', visibility: 'private' }),
      changed: ['visibility'],
      version: 0,
    });
    await expect(get(undefined, 'acme', 'site')).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(get(alice, 'acme', 'site')).resolves.toHaveProperty('repository');
  });

  it('keeps the newest owner name and visibility when accounts\' events arrive out of order', async () => {
    const dave = h.accounts.addUser('dave');
    const { repository } = await h.create(dave, { name: 'reordered' });
    // dave became "dave-a" (version 2), then "dave-b" (version 3), then private (4), then public again (5); the
    // relays delivered each pair newest first.
    h.accounts.rename(dave, 'dave-b');
    const renamed = (login: string, oldLogin: string, version: number) =>
      deliver(accounts, 'cairn.user.renamed', UserRenamed, { meta: meta(), user: User.fromPartial({ id: dave, login }), oldLogin, version });
    await renamed('dave-b', 'dave-a', 3);
    await renamed('dave-a', 'dave', 2);
    expect((await get(undefined, 'dave-b', 'reordered')).repository?.repository).toMatchObject({ id: repository.id, ownerName: 'dave-b' });

    const updated = (visibility: string, version: number) =>
      deliver(accounts, 'cairn.user.updated', UserUpdated, {
        meta: meta(),
        user: User.fromPartial({ id: dave, login: 'dave-b', visibility }),
        changed: ['visibility'],
        version,
      });
    await updated('public', 5);
    await updated('private', 4);
    expect(await get(undefined, 'dave-b', 'reordered')).toHaveProperty('repository');
  });

  it("drops a deleted team's links", async () => {
    const team = h.accounts.addTeam(acme, 'gone');
    const { repository } = await h.create(alice, { owner: 'acme', name: 'linked' });
    await h.collaborators.addRepoTeam({ actor: h.accounts.actor(alice), repoId: repository.id, team: 'gone' });
    await deliver(accounts, 'cairn.team.deleted', TeamDeleted, { meta: meta(), teamId: team, orgId: acme, name: 'gone' });
    const links = await h.db.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM team_repos WHERE team_id = ${team}`);
    expect(links).toBe(0);
  });

  it("deletes a deleted user's repositories with their git data, and their collaborations, once", async () => {
    const carol = h.accounts.addUser('carol');
    const own = await h.create(carol, { name: 'doomed', autoInit: true });
    const elsewhere = await h.create(alice, { name: 'shared' });
    await h.collaborators.addCollaborator({ actor: h.accounts.actor(alice), repoId: elsewhere.repository.id, username: 'carol', permission: 'write' });
    const event = { meta: meta(), userId: carol, login: 'carol', purge: false };
    await deliver(accounts, 'cairn.user.deleted', UserDeleted, event);
    await expect(h.repos.getRepository({ viewer: h.accounts.actor(alice), id: own.repository.id, owner: '', name: '' })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
    });
    // The git data goes after the commit, on the purger's round.
    expect(await purgeDueRepositories(h.context)).toEqual({ purged: 1, failed: 0 });
    expect(h.git.repo(own.repository.id)).toBeUndefined();
    const collaborators = await h.collaborators.listCollaborators({ viewer: h.accounts.actor(alice), repoId: elsewhere.repository.id });
    expect(collaborators.total).toBe(0);
    const deletions = (await h.subjects()).filter((subject) => subject === 'cairn.repo.deleted').length;
    // Delivered again (same event id): nothing more happens.
    await deliver(accounts, 'cairn.user.deleted', UserDeleted, event);
    expect((await h.subjects()).filter((subject) => subject === 'cairn.repo.deleted')).toHaveLength(deletions);
  });

  it('acknowledges events it cannot read or does not act on', async () => {
    await expect(accounts({ id: uuidv7(), subject: 'cairn.user.renamed', data: new Uint8Array([1, 2, 3]), deliveryCount: 1 })).resolves.toBeUndefined();
    await expect(deliver(accounts, 'cairn.user.renamed', UserRenamed, { meta: undefined, user: User.fromPartial({ id: 1 }), oldLogin: '', version: 0 })).resolves.toBeUndefined();
    await expect(accounts({ id: uuidv7(), subject: 'cairn.access_token.created', data: new Uint8Array(), deliveryCount: 1 })).resolves.toBeUndefined();
  });

  it('marks an empty repository pushed to as not empty, defaulting to the pushed branch when its own was not pushed', async () => {
    const { repository } = await h.create(alice, { name: 'first-push' });
    h.git.push(repository.id, 'feature');
    const refUpdates = [{ ref: 'refs/heads/feature', oldSha: '0'.repeat(40), newSha: 'b'.repeat(40) }];
    await deliver(git, 'cairn.git.pushed', GitPushed, GitPushed.fromPartial({ meta: meta(), pusherId: alice, repoId: repository.id, refUpdates }));
    const after = (await get(alice, 'alice', 'first-push')).repository?.repository;
    expect(after).toMatchObject({ empty: false, defaultBranch: 'feature', branchCount: 1 });
    expect(h.git.repo(repository.id)?.head).toBe('feature');

    const { repository: other } = await h.create(alice, { name: 'main-push' });
    h.git.push(other.id, 'main');
    h.git.push(other.id, 'dev');
    const both = [
      { ref: 'refs/heads/dev', oldSha: '0'.repeat(40), newSha: 'c'.repeat(40) },
      { ref: 'refs/heads/main', oldSha: '0'.repeat(40), newSha: 'd'.repeat(40) },
    ];
    await deliver(git, 'cairn.git.pushed', GitPushed, GitPushed.fromPartial({ meta: meta(), pusherId: alice, repoId: other.id, refUpdates: both }));
    expect((await get(alice, 'alice', 'main-push')).repository?.repository).toMatchObject({ empty: false, defaultBranch: 'main', branchCount: 2 });
  });
});
