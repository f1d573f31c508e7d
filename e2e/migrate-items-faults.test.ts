/**
 * An item import under a crash, on the built supervisor with the machine's NATS (every service its own process, a
 * `[bus] PREFIX` of its own): a gitea import (the same instance is the source, as in migrate-items.test.ts) whose
 * clone address is a loopback relay in front of the instance, with `[api] MAX_RESPONSE_ITEMS = 2` so issues, labels
 * and comments come in several pages. The relay holds the second page of the repository's comment list (the gitea
 * downloader reads comments repository-wide, after every issue): when the import asks for it, every issue and the
 * first comments page are imported and recorded, and the migrations process is killed with SIGKILL. The supervisor restarts it, the new process takes the task over once the dead claim's lease lapses
 * and resumes at the recorded item step. Afterwards the copy equals the source through the API: every issue once
 * with its number, every comment once and in order, every reaction, label and milestone once, the pull request
 * with its review and comment once, the release's asset once with its bytes, authors mapped the same way as without
 * the crash; the task row shows the takeover.
 */
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
/** The source's page size (and so the importer's): small, so that every list has several pages. */
const PAGE = 2;
/** The release asset's bytes. */
const ASSET = Buffer.from('tracker build\n');

describe('an item import when the migrations process is killed between pages', () => {
  let fx: Fixture;
  let pg: Client;
  let relay: HoldingRelay | undefined;
  let token = '';
  const prefix = uniqueName('mitems');

  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) => fx.api.request<Json>(method, `/api/v1${path}`, { headers, body });
  const ok = async (method: string, path: string, headers: Record<string, string>, body: unknown, status: number): Promise<Json> => {
    const answer = await call(method, path, headers, body);
    if (answer.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  /** A list Gitea does not page (an issue's comments, a comment's reactions). */
  const listWhole = async (path: string, headers: Record<string, string>): Promise<Json[]> => {
    const answer = await call('GET', path, headers);
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return (answer.body as unknown as Json[] | null) ?? [];
  };
  /** Every page of a paged list (the instance answers at most PAGE items a page). */
  const listAll = async (path: string, headers: Record<string, string>): Promise<Json[]> => {
    const found: Json[] = [];
    for (let page = 1; ; page++) {
      const answer = await call('GET', `${path}${path.includes('?') ? '&' : '?'}page=${page}&limit=${PAGE}`, headers);
      if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
      const items = (answer.body as unknown as Json[] | null) ?? [];
      found.push(...items);
      if (items.length < PAGE) return found;
    }
  };
  const migrationsPid = (): number | undefined => readRuntime(fx.workDir)?.services.migrations?.process?.pid;
  /** The copy's migration status (Cairn's extension, outside Gitea's description), or undefined while migrations restarts. */
  const migrationStatus = async (): Promise<Json | undefined> => {
    const answer = await fetch(`${fx.instance.httpUrl}/api/v1/repos/bob/copy/migration`, { headers: fx.as('bob') });
    return answer.status === 200 ? ((await answer.json()) as Json) : undefined;
  };

  beforeAll(async () => {
    fx = await startFixture('e2e_migrate_items_faults', ['alice', 'bob', 'carol'], {
      CAIRN__bus__URL: testNatsUrl(),
      CAIRN__bus__PREFIX: prefix,
      CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true',
      CAIRN__api__MAX_RESPONSE_ITEMS: String(PAGE),
    });
    pg = new Client({ connectionString: fx.database.url });
    await pg.connect();
    const alice = fx.as('alice');
    const carol = fx.as('carol');
    // carol hides her e-mail: she is kept as an original author; alice is matched by e-mail, on the first issues page
    // only, so that her later comments and reactions are hers only if the import remembers what it learned there.
    await ok('PATCH', '/user/settings', carol, { hide_email: true }, 200);
    await ok('POST', '/user/repos', alice, { name: 'tracker', auto_init: true, default_branch: 'main' }, 201);
    await ok('PUT', '/repos/alice/tracker/topics', alice, { topics: ['tools', 'cli'] }, 204);
    for (const name of ['bug', 'feature', 'docs']) await ok('POST', '/repos/alice/tracker/labels', alice, { name, color: '#ee0701', description: `${name} label` }, 201);
    await ok('POST', '/repos/alice/tracker/milestones', alice, { title: 'v1', description: 'first cut' }, 201);
    const old = await ok('POST', '/repos/alice/tracker/milestones', alice, { title: 'v0', description: 'done' }, 201);
    await ok('PATCH', `/repos/alice/tracker/milestones/${old.id as number}`, alice, { state: 'closed' }, 200);
    const labels = await listAll('/repos/alice/tracker/labels', alice);
    const labelId = (name: string) => labels.find((label) => label.name === name)?.id as number;
    // Five issues: carol writes the first four, alice the last (the newest: the first page).
    for (let n = 1; n <= 4; n++) {
      await ok('POST', '/repos/alice/tracker/issues', carol, { title: `issue ${n}`, body: `body ${n}`, labels: [labelId(n % 2 === 0 ? 'bug' : 'docs')], milestone: n === 1 ? old.id : undefined }, 201);
    }
    await ok('POST', '/repos/alice/tracker/issues', alice, { title: 'issue 5', body: 'body 5', labels: [labelId('feature')] }, 201);
    await ok('PATCH', '/repos/alice/tracker/issues/2', alice, { state: 'closed' }, 201);
    // Every issue has comments by both (three on some: several comment pages), with reactions on some.
    for (let n = 1; n <= 5; n++) {
      for (let c = 1; c <= (n % 2 === 1 ? 3 : 2); c++) {
        const comment = await ok('POST', `/repos/alice/tracker/issues/${n}/comments`, c % 2 === 1 ? alice : carol, { body: `comment ${c} on ${n}` }, 201);
        if (c === 1) await ok('POST', `/repos/alice/tracker/issues/comments/${comment.id as number}/reactions`, carol, { content: 'rocket' }, 201);
        if (c === 2) await ok('POST', `/repos/alice/tracker/issues/comments/${comment.id as number}/reactions`, alice, { content: 'laugh' }, 201);
      }
      await ok('POST', `/repos/alice/tracker/issues/${n}/reactions`, alice, { content: '+1' }, 201);
      await ok('POST', `/repos/alice/tracker/issues/${n}/reactions`, carol, { content: 'heart' }, 201);
    }
    const release = await ok('POST', '/repos/alice/tracker/releases', alice, { tag_name: 'v1.0', target_commitish: 'main', name: 'First', body: 'notes' }, 201);
    const uploaded = await fetch(`${fx.instance.httpUrl}/api/v1/repos/alice/tracker/releases/${release.id as number}/assets?name=tracker.bin`, {
      method: 'POST',
      headers: { ...alice, 'content-type': 'application/octet-stream' },
      body: ASSET,
    });
    expect(uploaded.status).toBe(201);
    // #6: alice's pull request from a branch of the repository, reviewed and commented on by carol.
    await ok('POST', '/repos/alice/tracker/contents/fix.txt', alice, { content: Buffer.from('fixed\n').toString('base64'), message: 'Fix it', new_branch: 'fix' }, 201);
    await ok('POST', '/repos/alice/tracker/pulls', alice, { title: 'Fix it', body: 'the fix', head: 'fix', base: 'main' }, 201);
    await waitFor('the pull request to be checked', async () => ((await ok('GET', '/repos/alice/tracker/pulls/6', alice, undefined, 200)).mergeable === true ? true : undefined));
    await ok('POST', '/repos/alice/tracker/pulls/6/reviews', carol, { event: 'COMMENT', body: 'a thought' }, 200);
    await ok('POST', '/repos/alice/tracker/issues/6/comments', carol, { body: 'on the pull request' }, 201);
    token = (await ok('POST', '/users/bob/tokens', fx.as('bob'), { name: 'import', scopes: ['all'] }, 201)).sha1 as string;
  });

  afterAll(async () => {
    await relay?.close();
    await pg?.end();
    await fx?.stop();
    await deleteStreamsOf([prefix]);
  });

  it('resumes at the recorded item step after the restart and imports everything once', async () => {
    const bob = fx.as('bob');
    // The relay holds the repository-wide comment list's second page, the first time it is asked for and again when
    // the resumed import asks for it (the rule sees paths, not queries: the list's second and third requests).
    let commentPages = 0;
    relay = await startHoldingRelay(new URL(fx.instance.httpUrl), ({ method, path }) => {
      if (method !== 'GET' || path !== '/api/v1/repos/alice/tracker/issues/comments') return false;
      commentPages += 1;
      return commentPages === 2 || commentPages === 3;
    });
    const held = relay;
    const migrating = call('POST', '/repos/migrate', bob, {
      clone_addr: `http://127.0.0.1:${held.port}/alice/tracker`,
      repo_name: 'copy',
      service: 'gitea',
      auth_token: token,
      labels: true,
      milestones: true,
      issues: true,
      pull_requests: true,
      releases: true,
    });

    // Every issue and the first comments page are in, the second is asked for: the status shows the recorded page.
    await waitFor('the held comments request', () => (held.held() === 1 ? true : undefined));
    expect(await migrationStatus()).toMatchObject({ status: RUNNING, message: `migrated page 1 of comments (${PAGE})` });
    const before = migrationsPid();
    expect(before).toBeDefined();
    process.kill(before!, 'SIGKILL');
    expect((await migrating).status).toBe(503);
    await waitFor('migrations to be restarted', () => {
      const pid = migrationsPid();
      return pid !== undefined && pid !== before && isAlive(pid) ? pid : undefined;
    });
    await waitFor('the dead claim’s request to be given up', () => (held.abandoned() === 1 ? true : undefined));

    // The new process takes the task over once the dead claim's lease lapses and asks for the same page again.
    await waitFor('the resumed import at the held page', () => (held.held() === 2 ? true : undefined), 60_000);
    held.releaseAll();
    const status = await waitFor('the import to finish', async () => {
      const current = await migrationStatus();
      return current?.status === FINISHED ? current : undefined;
    });
    const { id: copyId } = await ok('GET', '/repos/bob/copy', bob, undefined, 200);
    expect(status).toMatchObject({ message: '', 'repo-id': copyId, 'repo-name': 'bob/copy' });
    expect([held.held(), held.abandoned(), held.served()]).toEqual([2, 1, 1]);
    expect(fx.instance.output()).toMatch(/migrations exited unexpectedly; restarting it/);
    const { rows: tasks } = await pg.query<{ attempts: number; status: number; step: string }>(
      'SELECT attempts, status, step FROM migrations.migration_tasks WHERE repo_id = $1',
      [copyId],
    );
    expect(tasks).toEqual([{ attempts: 2, status: 5, step: 'done' }]);

    // Topics, labels and milestones once each.
    expect((await call('GET', '/repos/bob/copy/topics', bob)).body).toEqual({ topics: ['cli', 'tools'] });
    const labelShape = (labels: Json[]) => labels.map(({ name, color, description }) => ({ name, color, description })).sort((a, b) => String(a.name).localeCompare(String(b.name)));
    const copyLabels = await listAll('/repos/bob/copy/labels', bob);
    expect(copyLabels).toHaveLength(3);
    expect(labelShape(copyLabels)).toEqual(labelShape(await listAll('/repos/alice/tracker/labels', bob)));
    const milestoneShape = (milestones: Json[]) =>
      milestones.map(({ title, state, open_issues, closed_issues }) => ({ title, state, open_issues, closed_issues })).sort((a, b) => String(a.title).localeCompare(String(b.title)));
    const copyMilestones = await listAll('/repos/bob/copy/milestones?state=all', bob);
    expect(copyMilestones).toHaveLength(2);
    expect(milestoneShape(copyMilestones)).toEqual(milestoneShape(await listAll('/repos/alice/tracker/milestones?state=all', bob)));

    // Every issue once, with its number and what it had.
    const loginOf = (value: unknown) => (value as Json | null)?.login;
    const sourceIssues = await listAll('/repos/alice/tracker/issues?state=all&type=issues', bob);
    const copyIssues = await listAll('/repos/bob/copy/issues?state=all&type=issues', bob);
    const issueShape = (issues: Json[]) =>
      issues
        .map((issue) => ({
          number: issue.number,
          title: issue.title,
          body: issue.body,
          state: issue.state,
          comments: issue.comments,
          created_at: issue.created_at,
          labels: (issue.labels as Json[]).map((label) => label.name),
          milestone: (issue.milestone as Json | null)?.title,
          author: issue.original_author === '' ? loginOf(issue.user) : `original ${String(issue.original_author)}`,
        }))
        .sort((a, b) => Number(a.number) - Number(b.number));
    expect(copyIssues.map((issue) => issue.number).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(issueShape(copyIssues)).toEqual(issueShape(sourceIssues).map((issue) => ({ ...issue, author: issue.author === 'carol' ? 'original carol' : issue.author })));

    // Every comment once, in order, by the same authors as without the crash (alice is known from the issues), with its
    // reactions once; the issues' reactions once.
    const reactionShape = (reactions: Json[]) => reactions.map((reaction) => `${String(loginOf(reaction.user))}:${String(reaction.content)}`);
    for (let n = 1; n <= 5; n++) {
      const sourceComments = await listWhole(`/repos/alice/tracker/issues/${n}/comments`, bob);
      const copyComments = await listWhole(`/repos/bob/copy/issues/${n}/comments`, bob);
      const commentShape = (comments: Json[]) => comments.map((comment) => [comment.body, comment.created_at]);
      expect([n, commentShape(copyComments)]).toEqual([n, commentShape(sourceComments)]);
      expect([n, copyComments.map((comment) => (comment.original_author === '' ? loginOf(comment.user) : `original ${String(comment.original_author)}`))]).toEqual([
        n,
        sourceComments.map((comment) => (loginOf(comment.user) === 'carol' ? 'original carol' : loginOf(comment.user))),
      ]);
      for (const [i, comment] of copyComments.entries()) {
        const expected = i === 0 ? ['carol(gitea):rocket'] : i === 1 ? ['alice:laugh'] : [];
        expect([n, i, reactionShape(await listWhole(`/repos/bob/copy/issues/comments/${comment.id as number}/reactions`, bob))]).toEqual([n, i, expected]);
      }
      expect([n, reactionShape(await listAll(`/repos/bob/copy/issues/${n}/reactions`, bob))]).toEqual([n, ['alice:+1', 'carol(gitea):heart']]);
    }

    // The release once, with its asset once and the asset's bytes.
    const releases = await listAll('/repos/bob/copy/releases', bob);
    expect(releases.map((release) => release.tag_name)).toEqual(['v1.0']);
    const assets = await listWhole(`/repos/bob/copy/releases/${releases[0].id as number}/assets`, bob);
    expect(assets.map(({ name, size }) => ({ name, size }))).toEqual([{ name: 'tracker.bin', size: ASSET.length }]);
    const download = await fetch(assets[0].browser_download_url as string, { headers: bob });
    expect(Buffer.from(await download.arrayBuffer()).equals(ASSET)).toBe(true);

    // The pull request once, at its head, with its review and its comment once each.
    const sourcePull = await ok('GET', '/repos/alice/tracker/pulls/6', bob, undefined, 200);
    const copyPulls = await listAll('/repos/bob/copy/pulls?state=all', bob);
    expect(copyPulls.map((pull) => [pull.number, pull.title, pull.state, (pull.head as Json).ref, (pull.head as Json).sha])).toEqual([
      [6, 'Fix it', 'open', 'fix', (sourcePull.head as Json).sha],
    ]);
    const reviews = await listAll('/repos/bob/copy/pulls/6/reviews', bob);
    expect(reviews.map((review) => [review.state, review.body, loginOf(review.user)])).toEqual([['COMMENT', 'a thought', 'bob']]);
    expect((await listWhole('/repos/bob/copy/issues/6/comments', bob)).map((comment) => [comment.body, comment.original_author])).toEqual([['on the pull request', 'carol']]);
  });
});
