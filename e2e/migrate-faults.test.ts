/**
 * An import under a crash, on the built supervisor with the machine's NATS (every service its own process, a
 * `[bus] PREFIX` of its own): the source is the instance's own smart HTTP behind a loopback relay that holds each
 * pack transfer (`git-upload-pack` with wants) until the test lets it go. While the import's FetchRemote waits on
 * it, the migrations process is killed with SIGKILL: git-storage gives the orphaned fetch up (the relay sees its
 * client go), the supervisor restarts migrations, and the new process takes the task over once the dead claim's
 * lease lapses and fetches again. Afterwards the import has finished, the source served one pack, the copy has every
 * branch and tag of the source at the same commits and the source's default branch, there is one repository of
 * that name with one task, and exactly one cairn.git.pushed with origin "migration" reached the bus for it.
 */
import zlib from 'node:zlib';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { decodeEvent } from '@cairn/bus';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { testNatsUrl, uniqueName } from '@cairn/testing';
import { Client } from 'pg';
import { type Fixture, startFixture } from './support/fixture';
import { isAlive, readRuntime, waitFor } from './support/instance';
import { type HoldingRelay, startHoldingRelay } from './support/holding-relay';
import { deleteStreamsOf } from './support/nats-streams';

jest.setTimeout(240_000);

type Json = Record<string, unknown>;

/** Gitea's TaskStatus numbers as the migration status answers them. */
const RUNNING = 1;
const FINISHED = 4;
const ZERO_SHA = '0'.repeat(40);

/** The request body as git sent it (remote-curl gzips a large one). */
function bodyText(body: Buffer, encoding: string | undefined): string {
  return (encoding === 'gzip' ? zlib.gunzipSync(body) : body).toString('latin1');
}

/**
 * A loopback relay in front of `target`'s smart HTTP: passes everything through, but holds each pack transfer (a
 * POST to git-upload-pack naming wants — protocol v0's request or v2's `command=fetch`) until the test releases it.
 */
function startRelay(target: URL): Promise<HoldingRelay> {
  return startHoldingRelay(
    target,
    ({ method, path, headers, body }) => method === 'POST' && path.endsWith('/git-upload-pack') && bodyText(body, headers['content-encoding']).includes('want '),
  );
}

describe('an import when the migrations process is killed while it fetches', () => {
  let fx: Fixture;
  let pg: Client;
  let relay: HoldingRelay;
  const prefix = uniqueName('mfault');

  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) => fx.api.request<Json>(method, `/api/v1${path}`, { headers, body });
  const expectStatus = async (status: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Json> => {
    const answer = await call(method, path, headers, body);
    if (answer.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const migrationsPid = (): number | undefined => readRuntime(fx.workDir)?.services.migrations?.process?.pid;
  /**
   * The copy's migration status (Cairn's extension, outside Gitea's description: fetched as is), or undefined while
   * the migrations service cannot answer (it is restarting).
   */
  const migrationStatus = async (): Promise<Json | undefined> => {
    const answer = await fetch(`${fx.instance.httpUrl}/api/v1/repos/bob/copy/migration`, { headers: fx.as('bob') });
    return answer.status === 200 ? ((await answer.json()) as Json) : undefined;
  };
  /** git-storage's events for `repoId` as the bus holds them. */
  const pushedOn = async (repoId: number): Promise<GitPushed[]> => {
    const nc = await connect({ servers: testNatsUrl() });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = `${prefix.toUpperCase()}_GIT`;
      const { state } = await jsm.streams.info(stream);
      const events: GitPushed[] = [];
      for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
        const message = await jsm.streams.getMessage(stream, { seq });
        if (message?.subject === `${prefix}.git.pushed`) events.push(decodeEvent(GitPushed, message.data));
      }
      return events.filter((event) => event.repoId === repoId);
    } finally {
      await nc.close();
    }
  };

  beforeAll(async () => {
    fx = await startFixture('e2e_migrate_faults', ['alice', 'bob'], {
      CAIRN__bus__URL: testNatsUrl(),
      CAIRN__bus__PREFIX: prefix,
      CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true',
    });
    pg = new Client({ connectionString: fx.database.url });
    await pg.connect();
    relay = await startRelay(new URL(fx.instance.httpUrl));
    // A source whose default branch is not the instance's default, with branches on different commits and an
    // annotated and a lightweight tag.
    const alice = fx.as('alice');
    await expectStatus(201, 'POST', '/user/repos', alice, { name: 'source', auto_init: true, default_branch: 'trunk' });
    await expectStatus(201, 'POST', '/repos/alice/source/contents/docs/notes.md', alice, {
      content: Buffer.from('notes\n').toString('base64'),
      branch: 'trunk',
      new_branch: 'feature',
      message: 'notes',
    });
    await expectStatus(201, 'POST', '/repos/alice/source/branches', alice, { new_branch_name: 'release', old_branch_name: 'trunk' });
    await expectStatus(201, 'POST', '/repos/alice/source/tags', alice, { tag_name: 'v1.0', target: 'trunk', message: 'first release' });
    await expectStatus(201, 'POST', '/repos/alice/source/tags', alice, { tag_name: 'v1.1', target: 'feature' });
  });

  afterAll(async () => {
    await relay?.close();
    await pg?.end();
    await fx?.stop();
    await deleteStreamsOf([prefix]);
  });

  it('resumes after the restart and imports everything once', async () => {
    const bob = fx.as('bob');
    const cloneAddr = `http://127.0.0.1:${relay.port}/alice/source.git`;
    const migrating = call('POST', '/repos/migrate', bob, { clone_addr: cloneAddr, repo_name: 'copy', service: 'git' });

    // The first claim's fetch is at the source: the import is running, as its status says.
    await waitFor('the first pack transfer', () => (relay.held() === 1 ? true : undefined));
    expect(await migrationStatus()).toMatchObject({ status: RUNNING, message: 'migrating git data', 'repo-name': 'bob/copy' });
    const before = migrationsPid();
    expect(before).toBeDefined();
    process.kill(before!, 'SIGKILL');
    // The request's service died under it.
    expect((await migrating).status).toBe(503);
    await waitFor('migrations to be restarted', () => {
      const pid = migrationsPid();
      return pid !== undefined && pid !== before && isAlive(pid) ? pid : undefined;
    });

    // git-storage stops the fetch whose caller died (its outbound proxy cuts the connection), so that it cannot land
    // later, over the resumed import or what was pushed since.
    await waitFor('the dead claim’s fetch to be given up', () => (relay.abandoned() === 1 ? true : undefined));

    // The restarted service takes the task over once the dead claim's lease lapses, and fetches again.
    await waitFor('the resumed import at the source', () => (relay.held() === 2 ? true : undefined), 60_000);
    expect(await migrationStatus()).toMatchObject({ status: RUNNING, message: 'migrating git data' });
    const { id: copyId } = await expectStatus(200, 'GET', '/repos/bob/copy', bob);
    relay.releaseAll();
    const status = await waitFor('the import to finish', async () => {
      const current = await migrationStatus();
      return current?.status === FINISHED ? current : undefined;
    });
    expect(status).toMatchObject({ message: '', 'repo-id': copyId, 'repo-name': 'bob/copy' });
    expect([relay.held(), relay.abandoned(), relay.served()]).toEqual([2, 1, 1]);
    expect(fx.instance.output()).toMatch(/migrations exited unexpectedly; restarting it/);

    // The copy: the source's default branch, every branch and tag at the same commits.
    expect(await expectStatus(200, 'GET', '/repos/bob/copy', bob)).toMatchObject({ empty: false, mirror: false, default_branch: 'trunk', original_url: cloneAddr });
    const listed = async (path: string): Promise<Json[]> => (await expectStatus(200, 'GET', path, bob)) as unknown as Json[];
    const branchesOf = (list: Json[]) => list.map((branch) => [branch.name, (branch.commit as Json).id]).sort();
    const tagsOf = (list: Json[]) => list.map((tag) => [tag.name, tag.id, (tag.commit as Json).sha]).sort();
    const sourceBranches = await listed('/repos/alice/source/branches');
    expect(branchesOf(sourceBranches).map(([name]) => name)).toEqual(['feature', 'release', 'trunk']);
    expect(branchesOf(await listed('/repos/bob/copy/branches'))).toEqual(branchesOf(sourceBranches));
    const sourceTags = await listed('/repos/alice/source/tags');
    expect(tagsOf(sourceTags).map(([name]) => name)).toEqual(['v1.0', 'v1.1']);
    expect(tagsOf(await listed('/repos/bob/copy/tags'))).toEqual(tagsOf(sourceTags));

    // One repository of that name, one task, taken over once.
    const search = await expectStatus(200, 'GET', '/repos/search?q=copy', bob);
    expect((search.data as Json[]).filter((repo) => repo.full_name === 'bob/copy')).toHaveLength(1);
    const { rows: tasks } = await pg.query<{ attempts: number; status: number }>('SELECT attempts, status FROM migrations.migration_tasks WHERE repo_id = $1', [copyId]);
    expect(tasks).toEqual([{ attempts: 2, status: 5 }]);

    // Exactly one cairn.git.pushed for the copy, by the import, creating every branch and tag: once git-storage's
    // outbox has nothing left to publish, whatever either fetch wrote is on the bus.
    await waitFor('git-storage’s outbox drained', async () => {
      const { rows } = await pg.query<{ n: string }>('SELECT count(*) AS n FROM git_storage.cairn_outbox WHERE published_at IS NULL');
      return rows[0]?.n === '0' ? true : undefined;
    });
    const events = await pushedOn(copyId as number);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({ origin: 'migration', repoId: copyId });
    const sourceRefs = [
      ...branchesOf(sourceBranches).map(([name, sha]) => [`refs/heads/${name}`, sha]),
      ...tagsOf(sourceTags).map(([name, sha]) => [`refs/tags/${name}`, sha]),
    ].sort();
    expect(event.refUpdates.map((update) => [update.ref, update.newSha]).sort()).toEqual(sourceRefs);
    expect(event.refUpdates.every((update) => update.oldSha === ZERO_SHA)).toBe(true);
  });
});
