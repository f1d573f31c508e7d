/**
 * PullService on a real database, with git-storage and repos faked: creating (numbering shared with issues, the
 * first check, writer-only fields, forks, branch and target validation, reviewers and teams, bad input changing
 * nothing), reading, listing, editing (issue fields, base branch, allow_maintainer_edit, state, merged pull
 * requests), CheckPull, and the events of each change.
 */
import { IssueEvent, PullRequestEvent } from '@cairn/proto/cairn/issues/v1/events';
import { Team } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { CreatePullRequest, EditPullRequest, PullRequest } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { Code } from '@cairn/rpc';
import { decoded } from './harness';
import { type PullFixture, as, createPull, failure, freshRepo, orgAs, pullRequest, repoAs, startPullFixture } from './pull-fixture';

let fixture: PullFixture;

const POSTER = 7;
const READER = 8;
const WRITER = 9;
const ADMIN = 10;

beforeAll(async () => {
  fixture = await startPullFixture();
});
afterAll(async () => {
  await fixture.stop();
});

async function pullCount(repoId: number): Promise<number> {
  const { rows } = await fixture.harness.sql.query<{ n: string }>(
    'SELECT count(*) AS n FROM pull_requests p JOIN issues i ON i.id = p.issue_id WHERE i.repo_id = $1',
    [repoId],
  );
  return Number(rows[0].n);
}

async function pullEvents(seq: number): Promise<Array<{ subject: string; event: PullRequestEvent }>> {
  return (await fixture.harness.outbox(seq))
    .filter((row) => row.subject.startsWith('cairn.pull_request.'))
    .map((row) => ({ subject: row.subject, event: decoded(PullRequestEvent, row) }));
}

async function edit(repoId: number, index: number, userId: number, mode: 'read' | 'write' | 'admin', fields: Partial<EditPullRequest>): Promise<PullRequest> {
  const { pull } = await fixture.pulls.editPull({
    scope: as(repoId, userId, mode),
    index,
    fields: [],
    title: '',
    body: '',
    state: '',
    assigneeIds: [],
    milestoneId: 0,
    baseBranch: '',
    allowMaintainerEdit: false,
    contentVersion: 0,
    ...fields,
  });
  if (pull === undefined) throw new Error('EditPull answered without a pull request');
  return pull;
}

describe('creating', () => {
  test('a reader opens a pull request numbered with the issues; it is checked at once; the events are written', async () => {
    const repoId = freshRepo(fixture.git);
    await fixture.harness.issues.createIssue({
      scope: as(repoId, POSTER, 'read'),
      title: 'an issue',
      body: '',
      ref: '',
      assigneeIds: [],
      milestoneId: 0,
      labelIds: [],
      closed: false,
    });
    const seq = await fixture.harness.lastSeq();
    const pull = await createPull(fixture, pullRequest(repoId, POSTER, 'read', { title: 'Add a feature', body: 'Please' }));
    expect(pull).toMatchObject({
      issue: { index: 2, isPull: true, posterId: POSTER, title: 'Add a feature', body: 'Please', isClosed: false },
      headRepoId: repoId,
      headBranch: 'feature',
      baseBranch: 'main',
      status: 'mergeable',
      headCommitId: `${repoId}`.padStart(40, 'b'),
      hasMerged: false,
      requestedReviewerIds: [],
    });
    const subjects = (await fixture.harness.outbox(seq)).map((row) => row.subject);
    expect(subjects).toEqual(expect.arrayContaining(['cairn.issue.opened', 'cairn.pull_request.opened']));
    const opened = (await pullEvents(seq)).find((entry) => entry.subject === 'cairn.pull_request.opened');
    expect(opened?.event).toMatchObject({ meta: { actorId: POSTER, repoId }, repoPrivate: false, pull: { status: 'checking', issue: { index: 2 } } });
    const issueOpened = (await fixture.harness.outbox(seq)).find((row) => row.subject === 'cairn.issue.opened');
    expect(issueOpened && decoded(IssueEvent, issueOpened).issue).toMatchObject({ isPull: true, index: 2 });
    const { pull: read } = await fixture.pulls.getPull({ scope: as(repoId, READER, 'read'), index: 2 });
    expect(read?.status).toBe('mergeable');
  });

  test('stays "checking" when git-storage cannot check it now', async () => {
    const repoId = freshRepo(fixture.git);
    fixture.git.mergeDown = true;
    try {
      const pull = await createPull(fixture, pullRequest(repoId, POSTER, 'read'));
      expect(pull).toMatchObject({ status: 'checking', headCommitId: '' });
    } finally {
      fixture.git.mergeDown = false;
    }
    expect(await pullCount(repoId)).toBe(1);
    const { pull: checked } = await fixture.pulls.checkPull({ scope: as(repoId, POSTER, 'read'), index: 1 });
    expect(checked?.status).toBe('mergeable');
  });

  test('milestone, labels, assignees and deadline are for writers; an unknown milestone is NOT_FOUND for them', async () => {
    const repoId = freshRepo(fixture.git);
    const { rows } = await fixture.harness.sql.query<{ id: string }>("INSERT INTO milestones (repo_id, title) VALUES ($1, 'v1') RETURNING id", [repoId]);
    const milestoneId = Number(rows[0].id);
    const labels = await fixture.harness.sql.query<{ id: string }>("INSERT INTO labels (repo_id, name, color) VALUES ($1, 'bug', 'ee0701') RETURNING id", [repoId]);
    const labelId = Number(labels.rows[0].id);
    const byReader = await createPull(fixture, pullRequest(repoId, POSTER, 'read', { milestoneId, labelIds: [labelId], assigneeIds: [WRITER] }));
    expect(byReader.issue).toMatchObject({ milestone: undefined, labels: [], assigneeIds: [] });
    const byWriter = await createPull(
      fixture,
      pullRequest(repoId, WRITER, 'write', { headBranch: 'main', baseBranch: 'feature', milestoneId, labelIds: [labelId], assigneeIds: [READER] }),
    );
    expect(byWriter.issue).toMatchObject({ milestone: { id: milestoneId }, labels: [{ id: labelId }], assigneeIds: [READER] });
    const other = freshRepo(fixture.git);
    const missing = await failure(fixture.pulls.createPull(pullRequest(other, WRITER, 'write', { milestoneId: 999999 })));
    expect(missing.code).toBe(Code.NOT_FOUND);
    expect(await pullCount(other)).toBe(0);
    // A reader's unknown milestone is ignored, as the rest of the writer-only fields.
    expect((await createPull(fixture, pullRequest(other, READER, 'read', { milestoneId: 999999 }))).issue?.milestone).toBeUndefined();
  });

  test('head equal to base, missing branches and bad names are refused and change nothing', async () => {
    const repoId = freshRepo(fixture.git);
    const same = await failure(fixture.pulls.createPull(pullRequest(repoId, POSTER, 'read', { headBranch: 'main' })));
    expect(same).toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'Invalid PullRequest: There are no changes between the head and the base' });
    expect((await failure(fixture.pulls.createPull(pullRequest(repoId, POSTER, 'read', { baseBranch: 'nope' })))).code).toBe(Code.NOT_FOUND);
    expect((await failure(fixture.pulls.createPull(pullRequest(repoId, POSTER, 'read', { headBranch: 'nope' })))).code).toBe(Code.NOT_FOUND);
    expect((await failure(fixture.pulls.createPull(pullRequest(repoId, POSTER, 'read', { headBranch: '' })))).code).toBe(Code.INVALID_ARGUMENT);
    expect((await failure(fixture.pulls.createPull(pullRequest(repoId, POSTER, 'read', { baseBranch: 'x'.repeat(300) })))).code).toBe(Code.INVALID_ARGUMENT);
    expect((await failure(fixture.pulls.createPull(pullRequest(repoId, POSTER, 'read', { title: '' })))).code).toBe(Code.INVALID_ARGUMENT);
    expect(await pullCount(repoId)).toBe(0);
    const { rows } = await fixture.harness.sql.query('SELECT 1 FROM issues WHERE repo_id = $1', [repoId]);
    expect(rows).toHaveLength(0);
  });

  test('an open pull request for the same targets is ALREADY_EXISTS; once it is closed another may be opened', async () => {
    const repoId = freshRepo(fixture.git);
    const first = await createPull(fixture, pullRequest(repoId, POSTER, 'read'));
    const again = await failure(fixture.pulls.createPull(pullRequest(repoId, READER, 'read')));
    expect(again.code).toBe(Code.ALREADY_EXISTS);
    expect(again.message).toMatch(/^pull request already exists for these targets/);
    expect(await pullCount(repoId)).toBe(1);
    await edit(repoId, first.issue?.index ?? 0, POSTER, 'read', { fields: ['state'], state: 'closed' });
    expect((await createPull(fixture, pullRequest(repoId, READER, 'read'))).issue?.index).toBe(2);
  });

  test('who may open one: signed-in readers of pull requests and code, not in archived repositories', async () => {
    const repoId = freshRepo(fixture.git);
    expect((await failure(fixture.pulls.createPull(pullRequest(repoId, 0, 'read')))).code).toBe(Code.UNAUTHENTICATED);
    expect((await failure(fixture.pulls.createPull(pullRequest(repoId, POSTER, 'none')))).code).toBe(Code.NOT_FOUND);
    const noCode = { ...pullRequest(repoId, POSTER, 'read'), scope: as(repoId, POSTER, 'read', { units: ['repo.pulls'] }) };
    expect((await failure(fixture.pulls.createPull(noCode))).code).toBe(Code.NOT_FOUND);
    const archived = { ...pullRequest(repoId, POSTER, 'read'), scope: as(repoId, POSTER, 'read', { archived: true }) };
    expect((await failure(fixture.pulls.createPull(archived))).code).toBe(Code.FAILED_PRECONDITION);
    expect(await pullCount(repoId)).toBe(0);
  });

  test('from a fork the viewer may read; an unrelated or unreadable head repository is NOT_FOUND', async () => {
    const base = freshRepo(fixture.git);
    const fork = freshRepo(fixture.git);
    fixture.git.setBranch(fork, 'fix', 'f'.repeat(40));
    // The check looks the fork up itself (as the service, not as the viewer).
    fixture.git.repositories.set(`1:${fork}`, repoAs(fork, 1, 'admin', base));
    const pull = await createPull(fixture, pullRequest(base, POSTER, 'read', { head: repoAs(fork, POSTER, 'write', base), headBranch: 'fix' }));
    expect(pull).toMatchObject({ headRepoId: fork, headBranch: 'fix', headCommitId: 'f'.repeat(40), status: 'mergeable' });
    // The same branch name in the fork is no "same branch" clash.
    expect((await createPull(fixture, pullRequest(base, POSTER, 'read', { head: repoAs(fork, POSTER, 'write', base), headBranch: 'main' }))).headRepoId).toBe(fork);
    const unrelated = freshRepo(fixture.git);
    expect((await failure(fixture.pulls.createPull(pullRequest(base, POSTER, 'read', { head: repoAs(unrelated, POSTER, 'write') })))).code).toBe(Code.NOT_FOUND);
    expect((await failure(fixture.pulls.createPull(pullRequest(base, POSTER, 'read', { head: repoAs(fork, POSTER, 'none', base) })))).code).toBe(Code.NOT_FOUND);
    expect((await failure(fixture.pulls.createPull(pullRequest(base, POSTER, 'read', { head: repoAs(fork, POSTER, 'read', base), headBranch: 'gone' })))).code).toBe(
      Code.NOT_FOUND,
    );
  });

  test('reviewers are asked at once; the poster or someone who cannot read pull requests cannot be one', async () => {
    const repoId = freshRepo(fixture.git);
    fixture.git.repositories.set(`${WRITER}:${repoId}`, repoAs(repoId, WRITER, 'write'));
    fixture.git.repositories.set(`${READER}:${repoId}`, repoAs(repoId, READER, 'none'));
    const seq = await fixture.harness.lastSeq();
    const pull = await createPull(fixture, pullRequest(repoId, POSTER, 'read', { reviewerIds: [WRITER] }));
    expect(pull.requestedReviewerIds).toEqual([WRITER]);
    const requested = (await pullEvents(seq)).find((entry) => entry.subject === 'cairn.pull_request.review_requested');
    expect(requested?.event.reviewerIds).toEqual([WRITER]);
    const { rows } = await fixture.harness.sql.query<{ type: number; official: boolean }>('SELECT type, official FROM reviews WHERE issue_id = $1', [pull.issue?.id]);
    expect(rows).toEqual([{ type: 4, official: true }]);
    const other = freshRepo(fixture.git);
    fixture.git.repositories.set(`${POSTER}:${other}`, repoAs(other, POSTER, 'read'));
    fixture.git.repositories.set(`${READER}:${other}`, repoAs(other, READER, 'none'));
    const self = await failure(fixture.pulls.createPull(pullRequest(other, POSTER, 'read', { reviewerIds: [POSTER] })));
    expect(self).toMatchObject({ code: Code.INVALID_ARGUMENT });
    expect(self.message).toMatch(/^poster of pr can't be reviewer/);
    const cannotRead = await failure(fixture.pulls.createPull(pullRequest(other, POSTER, 'read', { reviewerIds: [READER] })));
    expect(cannotRead.message).toMatch(/^Reviewer can't read/);
    expect((await failure(fixture.pulls.createPull(pullRequest(other, POSTER, 'read', { reviewerIds: [-1] })))).code).toBe(Code.INVALID_ARGUMENT);
    const many = Array.from({ length: 101 }, (_, i) => 1000 + i);
    expect((await failure(fixture.pulls.createPull(pullRequest(other, POSTER, 'read', { reviewerIds: many })))).code).toBe(Code.INVALID_ARGUMENT);
    expect(await pullCount(other)).toBe(0);
  });

  test("teams of an organization's repository are asked at creation, in its transaction; a user's repository ignores them", async () => {
    const TEAM = 41;
    const OTHER_TEAM = 42;
    fixture.accounts.teams.push(
      Team.fromPartial({ id: TEAM, orgId: 100, name: 'Reviewers', permission: 'none', unitsMap: { 'repo.code': 'write' } }),
      Team.fromPartial({ id: OTHER_TEAM, orgId: 100, name: 'Readers', permission: 'none', unitsMap: { 'repo.code': 'read' } }),
    );
    const repoId = freshRepo(fixture.git);
    fixture.git.repositories.set(`${WRITER}:${repoId}`, repoAs(repoId, WRITER, 'write'));
    const org = (fields: Partial<CreatePullRequest>, more: { private?: boolean } = {}): CreatePullRequest =>
      pullRequest(repoId, POSTER, 'read', { scope: orgAs(repoId, POSTER, 'read', more), ...fields });

    // Refused before anything is stored: an unknown team, a private repository's team without access to it.
    expect(await failure(fixture.pulls.createPull(org({ reviewerIds: [WRITER], teamNames: ['reviewers', 'nobody'] })))).toMatchObject({
      code: Code.NOT_FOUND,
      message: "Team 'nobody' not exist",
    });
    fixture.git.repoTeams.set(repoId, [OTHER_TEAM]);
    expect((await failure(fixture.pulls.createPull(org({ teamNames: ['reviewers'] }, { private: true })))).message).toMatch(/^Reviewing team can't read repo/);
    expect(await pullCount(repoId)).toBe(0);

    const seq = await fixture.harness.lastSeq();
    const pull = await createPull(fixture, org({ reviewerIds: [WRITER], teamNames: ['REVIEWERS', 'reviewers'] }));
    expect(pull).toMatchObject({ requestedReviewerIds: [WRITER], requestedReviewerTeamIds: [TEAM] });
    const requested = (await pullEvents(seq)).filter((entry) => entry.subject === 'cairn.pull_request.review_requested');
    expect(requested.map((entry) => [entry.event.reviewerIds, entry.event.reviewerTeamIds])).toEqual([[[WRITER], [TEAM]]]);
    const { rows } = await fixture.harness.sql.query<{ reviewer_team_id: string; type: number }>(
      'SELECT reviewer_team_id, type FROM reviews WHERE issue_id = $1 AND reviewer_team_id > 0',
      [pull.issue?.id],
    );
    expect(rows.map((row) => [Number(row.reviewer_team_id), row.type])).toEqual([[TEAM, 4]]);
    // A private repository's team with access may be asked.
    fixture.git.setBranch(repoId, 'second', 'c'.repeat(40));
    const second = await createPull(fixture, org({ headBranch: 'second', teamNames: ['readers'] }, { private: true }));
    expect(second.requestedReviewerTeamIds).toEqual([OTHER_TEAM]);

    // On a user's repository the names are not even looked up.
    const mine = freshRepo(fixture.git);
    const ignored = await createPull(fixture, pullRequest(mine, POSTER, 'read', { teamNames: ['nobody'] }));
    expect(ignored.requestedReviewerTeamIds).toEqual([]);
  });
});

describe('reading and listing', () => {
  test('by number (an issue number is NOT_FOUND), by branches (the newest), and lists with filters, sorts and totals', async () => {
    const repoId = freshRepo(fixture.git);
    fixture.git.setBranch(repoId, 'other', 'c'.repeat(40));
    const first = await createPull(fixture, pullRequest(repoId, POSTER, 'read'));
    await edit(repoId, 1, POSTER, 'read', { fields: ['state'], state: 'closed' });
    const second = await createPull(fixture, pullRequest(repoId, POSTER, 'read'));
    const third = await createPull(fixture, pullRequest(repoId, READER, 'read', { headBranch: 'other' }));
    await fixture.harness.issues.createIssue({
      scope: as(repoId, POSTER, 'read'),
      title: 'an issue',
      body: '',
      ref: '',
      assigneeIds: [],
      milestoneId: 0,
      labelIds: [],
      closed: false,
    });
    expect((await failure(fixture.pulls.getPull({ scope: as(repoId, POSTER, 'read'), index: 4 }))).code).toBe(Code.NOT_FOUND);
    expect((await failure(fixture.pulls.getPull({ scope: as(repoId, POSTER, 'read'), index: 99 }))).code).toBe(Code.NOT_FOUND);
    expect((await failure(fixture.pulls.getPull({ scope: as(repoId, POSTER, 'none'), index: 1 }))).code).toBe(Code.NOT_FOUND);
    const byBranches = await fixture.pulls.getPullByBranches({ scope: as(repoId, 0, 'read'), baseBranch: 'main', headBranch: 'feature', headRepoId: 0 });
    expect(byBranches.pull?.issue?.index).toBe(second.issue?.index);
    const sameRepo = await fixture.pulls.getPullByBranches({ scope: as(repoId, 0, 'read'), baseBranch: 'main', headBranch: 'feature', headRepoId: repoId });
    expect(sameRepo.pull?.issue?.index).toBe(second.issue?.index);
    const fromElsewhere = fixture.pulls.getPullByBranches({ scope: as(repoId, 0, 'read'), baseBranch: 'main', headBranch: 'feature', headRepoId: repoId + 1000 });
    expect((await failure(fromElsewhere)).code).toBe(Code.NOT_FOUND);
    const unknown = fixture.pulls.getPullByBranches({ scope: as(repoId, 0, 'read'), baseBranch: 'main', headBranch: 'x', headRepoId: 0 });
    expect((await failure(unknown)).code).toBe(Code.NOT_FOUND);

    const list = (state: string, more: Record<string, unknown> = {}) =>
      fixture.pulls.listPulls({ scope: as(repoId, 0, 'read'), state, sort: '', milestoneId: 0, labelIds: [], posterId: 0, page: undefined, baseBranch: '', ...more });
    const open = await list('');
    expect(open.pulls.map((pull) => pull.issue?.index)).toEqual([third.issue?.index, second.issue?.index]);
    expect(open.total).toBe(2);
    expect((await list('closed')).pulls.map((pull) => pull.issue?.index)).toEqual([first.issue?.index]);
    const all = await list('all', { sort: 'oldest', page: { page: 2, limit: 2 } });
    expect(all.pulls.map((pull) => pull.issue?.index)).toEqual([third.issue?.index]);
    expect(all.total).toBe(3);
    expect((await list('all', { posterId: READER })).pulls.map((pull) => pull.issue?.index)).toEqual([third.issue?.index]);
    expect((await failure(fixture.pulls.listPulls({ scope: as(repoId, 0, 'none'), state: '', sort: '', milestoneId: 0, labelIds: [], posterId: 0, baseBranch: '' }))).code).toBe(Code.NOT_FOUND);
  });
});

describe('editing', () => {
  test('the poster edits the issue half and closes it; others who only read may not; events follow', async () => {
    const repoId = freshRepo(fixture.git);
    const pull = await createPull(fixture, pullRequest(repoId, POSTER, 'read'));
    const index = pull.issue?.index ?? 0;
    expect((await failure(edit(repoId, index, READER, 'read', { fields: ['title'], title: 'mine' }))).code).toBe(Code.PERMISSION_DENIED);
    const seq = await fixture.harness.lastSeq();
    const edited = await edit(repoId, index, POSTER, 'read', { fields: ['title', 'state'], title: 'Better', state: 'closed' });
    expect(edited.issue).toMatchObject({ title: 'Better', isClosed: true });
    const subjects = (await fixture.harness.outbox(seq)).map((row) => row.subject);
    expect(subjects).toEqual(['cairn.issue.edited', 'cairn.issue.closed', 'cairn.pull_request.edited', 'cairn.pull_request.closed']);
    const events = await pullEvents(seq);
    expect(events[0].event.changed).toEqual(['title']);
    const reopened = await edit(repoId, index, POSTER, 'read', { fields: ['state'], state: 'open' });
    expect(reopened.issue?.isClosed).toBe(false);
    expect((await failure(edit(repoId, index, POSTER, 'read', { fields: ['state'], state: 'merged' }))).code).toBe(Code.FAILED_PRECONDITION);
  });

  test('the base branch: must exist, goes back to "checking"; allow_maintainer_edit is the poster\'s', async () => {
    const repoId = freshRepo(fixture.git);
    fixture.git.setBranch(repoId, 'release', 'd'.repeat(40));
    const pull = await createPull(fixture, pullRequest(repoId, POSTER, 'read'));
    const index = pull.issue?.index ?? 0;
    expect((await failure(edit(repoId, index, WRITER, 'write', { fields: ['base'], baseBranch: 'gone' }))).code).toBe(Code.NOT_FOUND);
    expect((await failure(edit(repoId, index, WRITER, 'write', { fields: ['base'], baseBranch: 'feature' }))).code).toBe(Code.INVALID_ARGUMENT);
    const seq = await fixture.harness.lastSeq();
    const moved = await edit(repoId, index, WRITER, 'write', { fields: ['base'], baseBranch: 'release' });
    expect(moved).toMatchObject({ baseBranch: 'release', status: 'checking' });
    expect((await pullEvents(seq)).filter((entry) => entry.subject === 'cairn.pull_request.edited').map((entry) => entry.event.changed)).toEqual([['base']]);
    expect((await failure(edit(repoId, index, WRITER, 'write', { fields: ['allow_maintainer_edit'], allowMaintainerEdit: true }))).code).toBe(Code.PERMISSION_DENIED);
    expect((await edit(repoId, index, POSTER, 'read', { fields: ['allow_maintainer_edit'], allowMaintainerEdit: true })).allowMaintainerEdit).toBe(true);
  });

  test('a merged pull request keeps its state', async () => {
    const repoId = freshRepo(fixture.git);
    const pull = await createPull(fixture, pullRequest(repoId, POSTER, 'read'));
    await fixture.harness.sql.query('UPDATE pull_requests SET has_merged = true WHERE issue_id = $1', [pull.issue?.id]);
    const refused = await failure(edit(repoId, pull.issue?.index ?? 0, ADMIN, 'admin', { fields: ['state'], state: 'closed' }));
    expect(refused).toMatchObject({ code: Code.FAILED_PRECONDITION, message: 'cannot change state of this pull request, it was already merged' });
    const { rows } = await fixture.harness.sql.query<{ is_closed: boolean }>('SELECT is_closed FROM issues WHERE id = $1', [pull.issue?.id]);
    expect(rows[0].is_closed).toBe(false);
  });
});

describe('CheckPull', () => {
  test('recomputes the status now and publishes the change', async () => {
    const repoId = freshRepo(fixture.git);
    const pull = await createPull(fixture, pullRequest(repoId, POSTER, 'read'));
    fixture.git.mergeStatus = 'conflict';
    try {
      const seq = await fixture.harness.lastSeq();
      const { pull: checked } = await fixture.pulls.checkPull({ scope: as(repoId, READER, 'read'), index: pull.issue?.index ?? 0 });
      expect(checked?.status).toBe('conflict');
      expect((await pullEvents(seq)).map((entry) => entry.subject)).toEqual(['cairn.pull_request.mergeability_changed']);
    } finally {
      fixture.git.mergeStatus = 'mergeable';
    }
    expect((await failure(fixture.pulls.checkPull({ scope: as(repoId, 0, 'read'), index: 1 }))).code).toBe(Code.UNAUTHENTICATED);
  });
});
