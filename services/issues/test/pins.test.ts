/**
 * Pinning on a real database (rpc/pin-service.ts): positions from 1 per kind, MAX_PINNED, no-ops, moves, unpinning
 * that keeps the others' positions, the pinned lists in order, new_pin_allowed, the timeline entries, and who may do
 * what (repository admins and site admins only; anonymous, readers, writers refused; archived repositories).
 */
import { CreateIssueRequest, type Issue, type RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { Code } from '@cairn/rpc';
import { INVALID_POSITION_MESSAGE, MAX_PIN_REACHED_MESSAGE } from '../src/domain/pin-rules';
import { COMMENT_TYPE_PIN, COMMENT_TYPE_UNPIN } from '../src/store/pins';
import type { ScopeOptions } from './harness';
import { as, freshRepo, pullRequest, startPullFixture, type PullFixture } from './pull-fixture';

let fixture: PullFixture;

const ADMIN = 10;
const WRITER = 9;
const READER = 8;
const SITE_ADMIN = 11;

beforeAll(async () => {
  fixture = await startPullFixture();
});
afterAll(() => fixture.stop());

const admin = (repoId: number, more: Partial<ScopeOptions> = {}): RepoScope => as(repoId, ADMIN, 'admin', more);

async function createIssue(repoId: number, title: string, fields: Partial<CreateIssueRequest> = {}): Promise<Issue> {
  const { issue } = await fixture.harness.issues.createIssue(CreateIssueRequest.fromPartial({ scope: admin(repoId), title, ...fields }));
  if (issue === undefined) throw new Error('CreateIssue answered without an issue');
  return issue;
}

async function createPull(repoId: number): Promise<number> {
  const { pull } = await fixture.pulls.createPull(pullRequest(repoId, ADMIN, 'admin'));
  if (pull?.issue === undefined) throw new Error('CreatePull answered without a pull request');
  return pull.issue.index;
}

const pin = (repoId: number, index: number, scope = admin(repoId)) => fixture.harness.issues.pinIssue({ scope, index });
const unpin = (repoId: number, index: number, scope = admin(repoId)) => fixture.harness.issues.unpinIssue({ scope, index });
const move = (repoId: number, index: number, position: number, scope = admin(repoId)) =>
  fixture.harness.issues.moveIssuePin({ scope, index, position });

/** The pinned issues as [index, pin_order] pairs, in the list's order. */
async function pinnedIssues(repoId: number, scope = admin(repoId)): Promise<Array<[number, number]>> {
  const { issues } = await fixture.harness.issues.listPinnedIssues({ scope });
  return issues.map((issue) => [issue.index, issue.pinOrder]);
}

async function pinOrderOf(repoId: number, index: number): Promise<number> {
  const { issue } = await fixture.harness.issues.getIssue({ scope: admin(repoId), index });
  return issue?.pinOrder ?? -1;
}

async function timelineTypes(repoId: number, index: number): Promise<number[]> {
  const { rows } = await fixture.harness.sql.query<{ type: number }>(
    'SELECT c.type FROM comments c JOIN issues i ON i.id = c.issue_id WHERE i.repo_id = $1 AND i.index = $2 ORDER BY c.id',
    [repoId, index],
  );
  return rows.map((row) => row.type);
}

describe('pinning', () => {
  test('appends per kind up to MAX_PINNED (3); pinning again changes nothing; the issue carries its pin_order', async () => {
    const repoId = freshRepo(fixture.git);
    const [a, b, c, d] = [await createIssue(repoId, 'a'), await createIssue(repoId, 'b'), await createIssue(repoId, 'c'), await createIssue(repoId, 'd')];
    expect(a.pinOrder).toBe(0);
    await pin(repoId, a.index);
    await pin(repoId, b.index);
    await pin(repoId, b.index);
    await pin(repoId, c.index);
    expect(await pinnedIssues(repoId)).toEqual([
      [a.index, 1],
      [b.index, 2],
      [c.index, 3],
    ]);
    expect(await pinOrderOf(repoId, b.index)).toBe(2);
    expect(await fixture.harness.issues.getNewPinsAllowed({ scope: admin(repoId) })).toEqual({ issues: false, pullRequests: true });
    await expect(pin(repoId, d.index)).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'max_pinned', message: MAX_PIN_REACHED_MESSAGE });
    expect(await pinOrderOf(repoId, d.index)).toBe(0);
    // One timeline entry per pin that happened.
    expect(await timelineTypes(repoId, b.index)).toEqual([COMMENT_TYPE_PIN]);
  });

  test('pull requests have their own positions and limit, and their own list', async () => {
    const repoId = freshRepo(fixture.git);
    const issues = [await createIssue(repoId, 'a'), await createIssue(repoId, 'b'), await createIssue(repoId, 'c')];
    for (const issue of issues) await pin(repoId, issue.index);
    const pullIndex = await createPull(repoId);
    await pin(repoId, pullIndex);
    expect(await pinOrderOf(repoId, pullIndex)).toBe(1);
    expect((await pinnedIssues(repoId)).map(([index]) => index)).toEqual(issues.map((issue) => issue.index));
    const { pulls } = await fixture.pulls.listPinnedPulls({ scope: admin(repoId) });
    expect(pulls.map((pull) => [pull.issue?.index, pull.issue?.pinOrder, pull.headBranch])).toEqual([[pullIndex, 1, 'feature']]);
    expect(await fixture.harness.issues.getNewPinsAllowed({ scope: as(repoId, READER, 'read') })).toEqual({ issues: false, pullRequests: true });
  });

  test('pins made at the same time never pass MAX_PINNED nor share a position', async () => {
    const repoId = freshRepo(fixture.git);
    const issues = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((title) => createIssue(repoId, title)));
    const outcomes = await Promise.allSettled(issues.map((issue) => pin(repoId, issue.index)));
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(2);
    expect((await pinnedIssues(repoId)).map(([, order]) => order)).toEqual([1, 2, 3]);
  });

  test('an empty repository has nothing pinned and room for pins', async () => {
    const repoId = freshRepo(fixture.git);
    expect(await pinnedIssues(repoId)).toEqual([]);
    expect((await fixture.pulls.listPinnedPulls({ scope: admin(repoId) })).pulls).toEqual([]);
    expect(await fixture.harness.issues.getNewPinsAllowed({ scope: admin(repoId) })).toEqual({ issues: true, pullRequests: true });
  });
});

describe('moving and unpinning', () => {
  test('a move shifts the pins between the old and the new place, as Gitea MovePin', async () => {
    const repoId = freshRepo(fixture.git);
    const [a, b, c] = [await createIssue(repoId, 'a'), await createIssue(repoId, 'b'), await createIssue(repoId, 'c')];
    for (const issue of [a, b, c]) await pin(repoId, issue.index);
    await move(repoId, c.index, 1);
    expect(await pinnedIssues(repoId)).toEqual([
      [c.index, 1],
      [a.index, 2],
      [b.index, 3],
    ]);
    await move(repoId, c.index, 3);
    expect(await pinnedIssues(repoId)).toEqual([
      [a.index, 1],
      [b.index, 2],
      [c.index, 3],
    ]);
    await move(repoId, a.index, 2);
    expect(await pinnedIssues(repoId)).toEqual([
      [b.index, 1],
      [a.index, 2],
      [c.index, 3],
    ]);
    // Moves write no timeline entry.
    expect(await timelineTypes(repoId, a.index)).toEqual([COMMENT_TYPE_PIN]);
  });

  test('a position below 1 is refused; moving an unpinned issue changes nothing', async () => {
    const repoId = freshRepo(fixture.git);
    const [a, b] = [await createIssue(repoId, 'a'), await createIssue(repoId, 'b')];
    await pin(repoId, a.index);
    await expect(move(repoId, a.index, 0)).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_position', message: INVALID_POSITION_MESSAGE });
    await move(repoId, b.index, 1);
    expect(await pinnedIssues(repoId)).toEqual([[a.index, 1]]);
  });

  test('unpinning keeps the other positions (as Gitea), frees a place, and is a no-op when not pinned', async () => {
    const repoId = freshRepo(fixture.git);
    const [a, b, c, d] = [await createIssue(repoId, 'a'), await createIssue(repoId, 'b'), await createIssue(repoId, 'c'), await createIssue(repoId, 'd')];
    for (const issue of [a, b, c]) await pin(repoId, issue.index);
    await unpin(repoId, b.index);
    await unpin(repoId, b.index);
    await unpin(repoId, d.index);
    expect(await pinnedIssues(repoId)).toEqual([
      [a.index, 1],
      [c.index, 3],
    ]);
    expect(await pinOrderOf(repoId, b.index)).toBe(0);
    expect(await timelineTypes(repoId, b.index)).toEqual([COMMENT_TYPE_PIN, COMMENT_TYPE_UNPIN]);
    expect(await timelineTypes(repoId, d.index)).toEqual([]);
    await pin(repoId, d.index);
    expect(await pinnedIssues(repoId)).toEqual([
      [a.index, 1],
      [c.index, 3],
      [d.index, 4],
    ]);
  });

  test('closing keeps the pin (Gitea unpins only by deleting); a deleted issue leaves the list', async () => {
    const repoId = freshRepo(fixture.git);
    const [a, b] = [await createIssue(repoId, 'a'), await createIssue(repoId, 'b')];
    await pin(repoId, a.index);
    await pin(repoId, b.index);
    await fixture.harness.issues.editIssue({
      scope: admin(repoId),
      index: a.index,
      fields: ['state'],
      title: '',
      body: '',
      ref: '',
      state: 'closed',
      assigneeIds: [],
      milestoneId: 0,
      contentVersion: 0,
    });
    expect(await pinOrderOf(repoId, a.index)).toBe(1);
    await fixture.harness.issues.deleteIssue({ scope: admin(repoId), index: b.index });
    expect(await pinnedIssues(repoId)).toEqual([[a.index, 1]]);
  });
});

describe('who may pin', () => {
  test('repository admins and site admins; others are refused before the issue is looked up', async () => {
    const repoId = freshRepo(fixture.git);
    const issue = await createIssue(repoId, 'a');
    const adminMessage = 'user should be an owner or a collaborator with admin write of a repository';
    for (const scope of [as(repoId, WRITER, 'write'), as(repoId, READER, 'read')]) {
      await expect(pin(repoId, issue.index, scope)).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: adminMessage });
      await expect(unpin(repoId, 9999, scope)).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: adminMessage });
      await expect(move(repoId, issue.index, 1, scope)).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    }
    await expect(pin(repoId, issue.index, as(repoId, 0, 'read'))).rejects.toMatchObject({ code: Code.UNAUTHENTICATED });
    await expect(pin(repoId, issue.index, admin(repoId, { archived: true }))).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'archived' });
    await expect(pin(repoId, 9999)).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await pin(repoId, issue.index, as(repoId, SITE_ADMIN, 'read', { isAdmin: true }));
    expect(await pinOrderOf(repoId, issue.index)).toBe(1);
  });

  test('the lists follow what the viewer may read', async () => {
    const repoId = freshRepo(fixture.git);
    const issue = await createIssue(repoId, 'a');
    await pin(repoId, issue.index);
    expect(await pinnedIssues(repoId, as(repoId, 0, 'read'))).toEqual([[issue.index, 1]]);
    // Pull requests readable, issues not: Gitea's route answers, without the issues.
    expect(await pinnedIssues(repoId, as(repoId, READER, 'read', { units: ['repo.code', 'repo.pulls'] }))).toEqual([]);
    await expect(pinnedIssues(repoId, as(repoId, READER, 'read', { units: ['repo.code'] }))).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(fixture.pulls.listPinnedPulls({ scope: as(repoId, READER, 'read', { units: ['repo.code', 'repo.issues'] }) })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
    });
  });
});
