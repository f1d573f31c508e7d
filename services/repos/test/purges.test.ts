/**
 * Git data goes only after the transaction that decided it has committed (store/purges.ts, maintenance/purge-repositories.ts):
 * a deletion whose commit fails keeps its git data, an owner deletion that fails part-way keeps all of it and a
 * redelivery completes it, a deletion stands when git-storage is away and its data is removed on a later round, and
 * git data made for a creation that never committed is removed once the creation's deadline is over.
 *
 * Faults come from the real database: a trigger refuses a chosen row, or a deferred one refuses the COMMIT itself.
 */
import { encodeEvent, uuidv7 } from '@cairn/bus';
import { sql, z } from '@cairn/db';
import { UserDeleted } from '@cairn/proto/cairn/accounts/v1/events';
import { Code } from '@cairn/rpc';
import { accountsEventHandler } from '../src/events/accounts-consumer';
import { purgeDueRepositories } from '../src/maintenance/purge-repositories';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('removing git data after the commit', () => {
  let h: ReposHarness;
  let alice: number;

  beforeAll(async () => {
    h = await startReposHarness();
    alice = h.accounts.addUser('alice');
    // Refuses deleting the repositories named here, at once or (deferred) at COMMIT.
    await h.db.pool.query(sql.unsafe`CREATE TABLE refused_deletions (repo_id bigint PRIMARY KEY)`);
    await h.db.pool.query(sql.unsafe`
      CREATE FUNCTION refuse_deletion() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM refused_deletions WHERE repo_id = OLD.id) THEN RAISE EXCEPTION 'deletion refused'; END IF;
        RETURN OLD;
      END $$`);
    await h.db.pool.query(sql.unsafe`CREATE TRIGGER refuse_deletion BEFORE DELETE ON repositories FOR EACH ROW EXECUTE FUNCTION refuse_deletion()`);
  });

  afterAll(async () => {
    await h?.stop();
  });

  const count = (table: 'repositories' | 'repo_purges', ids: number[]) =>
    h.db.pool.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM ${sql.identifier([table])}
      WHERE ${sql.identifier([table === 'repositories' ? 'id' : 'repo_id'])} = ANY(${sql.array(ids, 'int8')})`);
  const rows = (id: number) => count('repositories', [id]);
  const purges = (ids: number[]) => count('repo_purges', ids);
  const refuse = (id: number) => h.db.pool.query(sql.unsafe`INSERT INTO refused_deletions (repo_id) VALUES (${id})`);
  const allow = () => h.db.pool.query(sql.unsafe`DELETE FROM refused_deletions`);

  it('keeps the git data of a deletion whose commit fails', async () => {
    const { repository } = await h.create(alice, { name: 'commit-fails', autoInit: true });
    await h.db.pool.query(sql.unsafe`
      CREATE FUNCTION refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'commit refused'; END $$`);
    await h.db.pool.query(sql.unsafe`
      CREATE CONSTRAINT TRIGGER refuse_commit AFTER DELETE ON repositories DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION refuse_commit()`);
    try {
      await expect(h.repos.deleteRepository({ actor: h.accounts.actor(alice), id: repository.id })).rejects.toMatchObject({ code: Code.INTERNAL });
    } finally {
      await h.db.pool.query(sql.unsafe`DROP TRIGGER refuse_commit ON repositories`);
    }
    expect(await rows(repository.id)).toBe(1);
    expect(h.git.repo(repository.id)).toBeDefined();
    expect(await purges([repository.id])).toBe(0);
  });

  it('keeps every repository of an owner whose deletion fails at the third of four, and a redelivery completes it', async () => {
    const carol = h.accounts.addUser('carol');
    const ids: number[] = [];
    for (const name of ['one', 'two', 'three', 'four']) ids.push((await h.create(carol, { name, autoInit: true })).repository.id);
    await refuse(ids[2]);
    const accounts = accountsEventHandler(h.context, 'repos-accounts-purge-test');
    const event = { id: uuidv7(), subject: 'cairn.user.deleted', deliveryCount: 1 };
    const data = encodeEvent(UserDeleted, { meta: { eventId: uuidv7(), occurredAt: new Date(), actorId: 0, repoId: 0 }, userId: carol, login: 'carol', purge: true });

    await expect(accounts({ ...event, data })).rejects.toThrow(/deletion refused/);
    for (const id of ids) {
      expect(await rows(id)).toBe(1);
      expect(h.git.repo(id)).toBeDefined();
    }
    expect(await purges(ids)).toBe(0);

    await allow();
    await accounts({ ...event, data, deliveryCount: 2 });
    for (const id of ids) expect(await rows(id)).toBe(0);
    // Committed; the data goes on the purger's round.
    expect(await purges(ids)).toBe(4);
    expect(await purgeDueRepositories(h.context)).toEqual({ purged: 4, failed: 0 });
    for (const id of ids) expect(h.git.repo(id)).toBeUndefined();
    expect(await purges(ids)).toBe(0);
  });

  it('deletes a repository while git-storage is away, and removes its data on a later round', async () => {
    const { repository } = await h.create(alice, { name: 'git-away', autoInit: true });
    h.git.failNext('deleteRepository');
    await expect(h.repos.deleteRepository({ actor: h.accounts.actor(alice), id: repository.id })).resolves.toEqual({});
    expect(await rows(repository.id)).toBe(0);
    expect(h.git.repo(repository.id)).toBeDefined();
    const attempts = await h.db.pool.oneFirst(sql.type(z.object({ attempts: z.number() }))`
      SELECT attempts FROM repo_purges WHERE repo_id = ${repository.id}`);
    expect(attempts).toBe(1);
    // Put off after the failure; due again once the back-off has passed.
    expect(await purgeDueRepositories(h.context)).toEqual({ purged: 0, failed: 0 });
    await h.db.pool.query(sql.unsafe`UPDATE repo_purges SET not_before = now() WHERE repo_id = ${repository.id}`);
    expect(await purgeDueRepositories(h.context)).toEqual({ purged: 1, failed: 0 });
    expect(h.git.repo(repository.id)).toBeUndefined();
    expect(await purges([repository.id])).toBe(0);
  });

  it.each(['createRepository', 'forkRepository'] as const)(
    'removes the git data %s made for a caller whose deadline passed, once the creation is over',
    async (method) => {
      const base = await h.create(alice, { name: `base-${method}`, autoInit: true });
      const dave = h.accounts.addUser(`dave-${method}`);
      h.git.answerLateNext(method);
      const creating =
        method === 'createRepository'
          ? h.create(dave, { name: 'late' })
          : h.repos.forkRepository({ actor: h.accounts.actor(dave), id: base.repository.id, organization: '', name: '' });
      await expect(creating).rejects.toMatchObject({ code: Code.DEADLINE_EXCEEDED });
      const [reserved] = await h.db.pool.anyFirst(sql.type(z.object({ repo_id: z.number() }))`
        SELECT repo_id FROM repo_purges WHERE not_before > now() ORDER BY repo_id DESC LIMIT 1`);
      expect(await rows(reserved)).toBe(0);
      expect(h.git.repo(reserved)).toBeDefined();
      // Not before the reservation is due: git-storage may still be making it.
      await purgeDueRepositories(h.context);
      expect(h.git.repo(reserved)).toBeDefined();
      await h.db.pool.query(sql.unsafe`UPDATE repo_purges SET not_before = now() WHERE repo_id = ${reserved}`);
      await purgeDueRepositories(h.context);
      expect(h.git.repo(reserved)).toBeUndefined();
      expect(await purges([reserved])).toBe(0);
    },
  );

  it('leaves nothing to purge after a creation that commits', async () => {
    const { repository } = await h.create(alice, { name: 'kept', autoInit: true });
    expect(await purges([repository.id])).toBe(0);
    await purgeDueRepositories(h.context);
    expect(h.git.repo(repository.id)).toBeDefined();
  });
});
