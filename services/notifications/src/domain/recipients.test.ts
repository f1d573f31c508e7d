import { IssueCommentEvent, IssueEvent, PullRequestEvent, PullReviewEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { Permission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { isWorkInProgress } from '@cairn/gitea-json';
import { type IssueNotice, commentEventNotice, issueEventNotice, pullEventNotice, reviewEventNotice } from './issue-notices';
import { type IssueAudience, NO_AUDIENCE, issueMailJobs, mayReadUnit, noticeRecipients, readableOnly, repoWatchersWanted, usersToCheck } from './recipients';

// Users: 1 actor, 2 poster, 3 commenter, 4 issue subscriber, 5 repo watcher, 6 unsubscribed, 7 mentioned, 8 assignee.
const ACTOR = 1;
const meta = { eventId: '01890000-0000-7000-8000-000000000001', occurredAt: new Date(0), actorId: ACTOR, repoId: 10 };
const issue = (fields: Partial<Issue> = {}): Issue => IssueEvent.fromPartial({ issue: { id: 100, repoId: 10, index: 3, posterId: 2, title: 'Bug', assigneeIds: [8], ...fields } }).issue!;
const audience: IssueAudience = { participantIds: [2, 3, ACTOR], watcherIds: [4, 6], unwatcherIds: [6], repoWatcherIds: [5, 6, ACTOR] };

function issueNotice(subject: string, fields: Partial<IssueEvent> = {}, issueFields: Partial<Issue> = {}): IssueNotice {
  const notice = issueEventNotice(subject, IssueEvent.fromPartial({ meta, issue: issue(issueFields), ...fields }));
  if (notice === undefined || notice.kind !== 'notify') throw new Error(`${subject} notifies nobody`);
  return notice;
}

const sorted = (map: ReadonlyMap<number, string>) => [...map].sort(([a], [b]) => a - b);

describe('issueEventNotice and friends (which events notify, Gitea uinotification/notify.go)', () => {
  it.each<[string, string, Partial<IssueEvent>, Partial<Issue>, Partial<IssueNotice> | undefined]>([
    ['an issue opened tells the audience and the mentioned', 'cairn.issue.opened', { mentionedUserIds: [7] }, {}, { toAudience: true, watchersDespiteWip: false, receivers: [{ userId: 7, reason: 'mention' }], mail: { action: 'new', body: '' } }],
    ['a pull request opened tells repository watchers even when WIP', 'cairn.issue.opened', {}, { isPull: true, title: 'WIP: x' }, { toAudience: true, watchersDespiteWip: true }],
    ['closed', 'cairn.issue.closed', {}, {}, { toAudience: true, mail: { action: 'close', body: '' } }],
    ['a merged pull request closed is a merge', 'cairn.issue.closed', {}, { isPull: true, pullMergedAt: new Date(1000) }, { toAudience: true, mail: { action: 'merge', body: '' } }],
    ['reopened', 'cairn.issue.reopened', {}, {}, { toAudience: true, mail: { action: 'reopen', body: '' } }],
    ['an assignee added by someone else', 'cairn.issue.assigned', { addedAssigneeIds: [8, ACTOR] }, {}, { toAudience: false, receivers: [{ userId: 8, reason: 'assignee' }], mail: { action: 'assign', body: '' } }],
    ['a user assigning only themselves', 'cairn.issue.assigned', { addedAssigneeIds: [ACTOR] }, {}, undefined],
    ['assignees only removed', 'cairn.issue.assigned', { removedAssigneeIds: [8] }, {}, undefined],
    ['a WIP prefix dropped from a pull request', 'cairn.issue.edited', { changed: ['title'], previousTitle: '[WIP] x' }, { isPull: true, title: 'x' }, { toAudience: true, mail: undefined }],
    ['a title edited otherwise', 'cairn.issue.edited', { changed: ['title'], previousTitle: 'y' }, { isPull: true, title: 'x' }, undefined],
    ['labels changed', 'cairn.issue.labeled', {}, {}, undefined],
  ])('%s', (_what, subject, fields, issueFields, expected) => {
    const notice = issueEventNotice(subject, IssueEvent.fromPartial({ meta, issue: issue(issueFields), ...fields }));
    if (expected === undefined) expect(notice).toBeUndefined();
    else expect(notice).toMatchObject({ kind: 'notify', actorId: ACTOR, ...expected });
  });

  it('a deleted issue takes its threads', () => {
    expect(issueEventNotice('cairn.issue.deleted', IssueEvent.fromPartial({ meta, issue: issue() }))).toEqual({ kind: 'issue_deleted', issueId: 100 });
  });

  it('a new comment points the threads at it and tells the mentioned', () => {
    const event = IssueCommentEvent.fromPartial({ meta, issue: issue(), comment: { id: 55, body: 'hi @x' }, mentionedUserIds: [7] });
    expect(commentEventNotice('cairn.issue_comment.created', event)).toMatchObject({ commentId: 55, toAudience: true, receivers: [{ userId: 7, reason: 'mention' }], mail: { action: 'comment', body: 'hi @x' } });
    expect(commentEventNotice('cairn.issue_comment.edited', event)).toBeUndefined();
  });

  it('a review request names its reviewers and teams; other pull-request events are left to the issue half', () => {
    const event = PullRequestEvent.fromPartial({ meta, pull: { issue: issue({ isPull: true }) }, reviewerIds: [9], reviewerTeamIds: [40] });
    expect(pullEventNotice('cairn.pull_request.review_requested', event)).toMatchObject({ toAudience: false, receivers: [{ userId: 9, reason: 'reviewer' }], reviewerTeamIds: [40], mail: { action: 'review_request' } });
    for (const subject of ['cairn.pull_request.opened', 'cairn.pull_request.closed', 'cairn.pull_request.merged', 'cairn.pull_request.review_request_removed']) {
      expect(pullEventNotice(subject, event)).toBeUndefined();
    }
  });

  it('new commits on the head tell the audience and mail them the push (Gitea PullRequestPushCommits)', () => {
    const event = PullRequestEvent.fromPartial({ meta, pull: { issue: issue({ isPull: true }) }, changed: ['head'] });
    expect(pullEventNotice('cairn.pull_request.synchronized', event)).toMatchObject({ toAudience: true, receivers: [], mail: { action: 'push', body: '' } });
  });

  it.each<[string, string | undefined]>([
    ['APPROVED', 'review_approved'],
    ['REQUEST_CHANGES', 'review_rejected'],
    ['COMMENT', 'review_comment'],
    ['PENDING', undefined],
    ['REQUEST_REVIEW', undefined],
  ])('a submitted %s review mails %s', (state, action) => {
    const event = PullReviewEvent.fromPartial({ meta, pull: { issue: issue({ isPull: true }) }, review: { state, body: 'ok', timelineCommentId: 77 } });
    const notice = reviewEventNotice('cairn.pull_review.submitted', event);
    if (action === undefined) expect(notice).toBeUndefined();
    else expect(notice).toMatchObject({ commentId: 77, toAudience: true, mail: { action, body: 'ok' } });
  });

  it.each<[string, boolean]>([
    ['WIP: thing', true],
    ['[wip] thing', true],
    ['wip: lower case too', true],
    ['Thing WIP:', false],
    ['WIP thing', false],
  ])('%s is a work in progress: %s', (title, expected) => {
    expect(isWorkInProgress(title)).toBe(expected);
  });
});

describe('noticeRecipients (Gitea createOrUpdateIssueNotifications)', () => {
  it.each<[string, IssueNotice, IssueAudience, number[], boolean, Array<[number, string]>]>([
    [
      'the audience: participants, subscribers, repository watchers; not the actor, not the unsubscribed',
      issueNotice('cairn.issue.closed'),
      audience,
      [],
      false,
      [[2, 'participant'], [3, 'participant'], [4, 'watcher'], [5, 'watcher']],
    ],
    ['mail adds the assignees', issueNotice('cairn.issue.closed'), audience, [], true, [[2, 'participant'], [3, 'participant'], [4, 'watcher'], [5, 'watcher'], [8, 'assignee']]],
    [
      'a mention wins over being a participant, and reaches an unsubscribed user (a named receiver)',
      issueNotice('cairn.issue.opened', { mentionedUserIds: [3, 6, ACTOR] }),
      audience,
      [],
      false,
      [[2, 'participant'], [3, 'mention'], [4, 'watcher'], [5, 'watcher'], [6, 'mention']],
    ],
    ['a WIP pull request closed: no repository watchers', issueNotice('cairn.issue.closed', {}, { isPull: true, title: 'WIP: x' }), audience, [], false, [[2, 'participant'], [3, 'participant'], [4, 'watcher']]],
    ['an assignee only', issueNotice('cairn.issue.assigned', { addedAssigneeIds: [8] }), audience, [], false, [[8, 'assignee']]],
    [
      'a team asked to review: its members but the poster and the actor',
      pullEventNotice('cairn.pull_request.review_requested', PullRequestEvent.fromPartial({ meta, pull: { issue: issue({ isPull: true }) }, reviewerIds: [9], reviewerTeamIds: [40] }))!,
      NO_AUDIENCE,
      [2, ACTOR, 11, 12],
      false,
      [[9, 'reviewer'], [11, 'reviewer'], [12, 'reviewer']],
    ],
  ])('%s', (_what, notice, given, teamMembers, forMail, expected) => {
    expect(sorted(noticeRecipients(notice, given, teamMembers, forMail))).toEqual(expected);
  });

  it('asks social for repository watchers only when they are part of it', () => {
    expect(repoWatchersWanted(issueNotice('cairn.issue.closed'))).toBe(true);
    expect(repoWatchersWanted(issueNotice('cairn.issue.closed', {}, { isPull: true, title: 'WIP: x' }))).toBe(false);
    expect(repoWatchersWanted(issueNotice('cairn.issue.opened', {}, { isPull: true, title: 'WIP: x' }))).toBe(true);
    expect(repoWatchersWanted(issueNotice('cairn.issue.assigned', { addedAssigneeIds: [8] }))).toBe(false);
  });

  it('checks the permission of every recipient, mail ones and the actor included when mailing', () => {
    const notice = issueNotice('cairn.issue.closed');
    expect(usersToCheck(notice, audience, [], false)).toEqual([2, 3, 4, 5]);
    expect(usersToCheck(notice, audience, [], true)).toEqual([ACTOR, 2, 3, 4, 5, 8]);
  });
});

describe('the read check (Gitea CheckRepoUnitUser)', () => {
  const permission = (units: Record<string, string>): Permission => ({ accessMode: 'read', units });
  const permissions = new Map<number, Permission>([
    [2, permission({ 'repo.issues': 'read', 'repo.pulls': 'none' })],
    [3, permission({ 'repo.issues': 'none', 'repo.pulls': 'write' })],
    [4, permission({ 'repo.code': 'read' })],
  ]);
  const recipients = new Map<number, string>([
    [2, 'participant'],
    [3, 'participant'],
    [4, 'watcher'],
    [5, 'watcher'],
  ]);

  it.each<[boolean, number[]]>([
    [false, [2]],
    [true, [3]],
  ])('pull request %s: only those who may read its unit (a disabled unit, an unknown user: nobody)', (isPull, expected) => {
    expect([...readableOnly(recipients, permissions, isPull).keys()]).toEqual(expected);
  });

  it('no permission is no read', () => {
    expect(mayReadUnit(undefined, 'repo.issues')).toBe(false);
  });
});

describe('issueMailJobs (Gitea mailIssueCommentToParticipants)', () => {
  it('one job per recipient with their reason, and the actor their own', () => {
    const notice = issueNotice('cairn.issue.opened', { mentionedUserIds: [7] });
    const jobs = issueMailJobs(meta.eventId, notice, new Map([[7, 'mention' as const], [4, 'watcher' as const]]), true, 'alice/repo');
    expect(jobs.map((job) => [job.recipientId, job.reason])).toEqual([
      [7, 'mention'],
      [4, 'watcher'],
      [ACTOR, 'own'],
    ]);
    expect(jobs[0]).toMatchObject({ kind: 'issue', eventId: meta.eventId, data: { action: 'new', actorId: ACTOR, repoId: 10, repoFullName: 'alice/repo', issueId: 100, issueIndex: 3, isPull: false, title: 'Bug', commentId: 0 } });
  });

  it('no own mail for a named receiver only (assign), none when the actor lost access, none at all without a mail action', () => {
    expect(issueMailJobs(meta.eventId, issueNotice('cairn.issue.assigned', { addedAssigneeIds: [8] }), new Map([[8, 'assignee' as const]]), true, 'a/b').map((job) => job.reason)).toEqual(['assignee']);
    expect(issueMailJobs(meta.eventId, issueNotice('cairn.issue.closed'), new Map(), false, 'a/b')).toEqual([]);
    const ready = issueNotice('cairn.issue.edited', { changed: ['title'], previousTitle: 'WIP: x' }, { isPull: true, title: 'x' });
    expect(issueMailJobs(meta.eventId, ready, new Map([[2, 'participant' as const]]), true, 'a/b')).toEqual([]);
  });
});
