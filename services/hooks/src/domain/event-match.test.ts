import { branchPasses, coarseEvent, hookChoosesEvent, hookWantsPayload } from './event-match';

describe('hookChoosesEvent (Gitea issuesHook/pullHook and EventCheckers)', () => {
  it.each([
    [['issues'], 'issues', true],
    [['issues'], 'issue_label', true],
    [['issues'], 'issue_comment', true],
    [['issues'], 'pull_request', false],
    [['issues_only'], 'issues', true],
    [['issues_only'], 'issue_assign', false],
    [['pull_request'], 'pull_request_sync', true],
    [['pull_request'], 'pull_request_review_approved', true],
    [['pull_request'], 'pull_request_comment', true],
    [['pull_request_only'], 'pull_request_sync', false],
    [['pull_request_review'], 'pull_request_review_rejected', true],
    [['pull_request_review'], 'pull_request_review_comment', false],
    [['pull_request_comment'], 'pull_request_review_comment', true],
    [['Push'], 'push', true],
    [['push'], 'create', false],
    [['create', 'delete'], 'delete', true],
    [['unknown'], 'push', false],
  ] as const)('%j chooses %s: %s', (events, eventType, expected) => {
    expect(hookChoosesEvent(events, eventType)).toBe(expected);
  });
});

describe('branchPasses (Gitea checkBranch)', () => {
  it('empty and * take every branch', () => {
    expect(branchPasses('', 'any/thing')).toBe(true);
    expect(branchPasses('*', 'any/thing')).toBe(true);
  });
  it('is a glob in which * crosses /', () => {
    expect(branchPasses('release/*', 'release/v1')).toBe(true);
    expect(branchPasses('feature*', 'feature/deep/name')).toBe(true);
    expect(branchPasses('{main,dev}', 'dev')).toBe(true);
    expect(branchPasses('main', 'develop')).toBe(false);
  });
  it('a filter that does not compile takes nothing', () => {
    expect(branchPasses('[', 'main')).toBe(false);
  });
  it('runs in linear time on a hostile filter', () => {
    expect(branchPasses('**a**a**a**a**a**a**a**b', 'a'.repeat(200))).toBe(false);
  });
});

describe('hookWantsPayload', () => {
  const hook = { type: 'slack', events: ['push', 'create'], branchFilter: 'main' };
  it('sends pushes without commits to gitea and gogs hooks only', () => {
    expect(hookWantsPayload(hook, { eventType: 'push', branch: 'main', pushCommits: 0 })).toBe(false);
    expect(hookWantsPayload({ ...hook, type: 'gitea' }, { eventType: 'push', branch: 'main', pushCommits: 0 })).toBe(true);
  });
  it('applies the branch filter to branches only', () => {
    expect(hookWantsPayload(hook, { eventType: 'push', branch: 'dev', pushCommits: 1 })).toBe(false);
    expect(hookWantsPayload(hook, { eventType: 'create' })).toBe(true);
  });
});

it('coarseEvent: X-Gitea-Event of a fine type', () => {
  expect(coarseEvent('issue_label')).toBe('issues');
  expect(coarseEvent('pull_request_sync')).toBe('pull_request');
  expect(coarseEvent('pull_request_comment')).toBe('issue_comment');
  expect(coarseEvent('pull_request_review_approved')).toBe('pull_request_approved');
  expect(coarseEvent('pull_request_review_comment')).toBe('pull_request_comment');
  expect(coarseEvent('push')).toBe('push');
});
