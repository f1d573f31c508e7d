/**
 * The pull-request and review routes over HTTP with the issues service (PullService, ReviewService, labels),
 * git-storage (refs, MergeService) and repos faked: what the routes send, Gitea's JSON for what comes back (checked
 * against Gitea's description), Gitea's statuses for the service's refusals, and bad input answered 4xx before any
 * service is asked.
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import type {
  CreatePullRequest,
  EditPullRequest,
  ListPullsRequest,
  MergePullRequest,
  PullRequest,
  Review,
} from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { GetDiffResponse, ListChangedFilesRequest, ListCommitsBetweenRequest } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError, Code } from '@cairn/rpc';
import type { GitMergeClient, LabelsClient, PullsClient, RefsClient, ReviewsClient } from '../src/clients';
import { FakeAccounts } from './support/fake-accounts';
import { FakeRepos, permission, repository } from './support/fake-repos';
import { FakeService } from './support/fake-service';
import { expectExactGiteaShape, giteaApi } from './support/gitea-schema';
import { type TestGateway, basic, jsonBody, startTestGateway } from './support/harness';

const ROOT_URL = 'http://localhost:3000/';
const HEAD_SHA = 'a'.repeat(40);
const BASE_SHA = 'b'.repeat(40);
const MERGE_BASE = 'c'.repeat(40);

describe('pull-request routes', () => {
  const accounts = new FakeAccounts();
  const repos = new FakeRepos();
  const pulls = new FakeService<PullsClient>('pulls');
  const reviews = new FakeService<ReviewsClient>('reviews');
  const gitMerge = new FakeService<GitMergeClient>('gitMerge');
  const refs = new FakeService<RefsClient>('refs');
  const labels = new FakeService<LabelsClient>('labels');
  accounts.clients.repos = repos.client;
  accounts.clients.stars = repos.stars;
  accounts.clients.issues = repos.issues;
  accounts.clients.pulls = pulls.client;
  accounts.clients.reviews = reviews.client;
  accounts.clients.gitMerge = gitMerge.client;
  accounts.clients.refs = refs.client;
  accounts.clients.labels = labels.client;
  const alice = accounts.addUser('alice', { password: 'alice-password' });
  const bob = accounts.addUser('bob', { password: 'bob-password' });
  const carol = accounts.addUser('carol', { password: 'carol-password' });
  const ALICE = basic('alice', 'alice-password');
  const BOB = basic('bob', 'bob-password');
  const CAROL = basic('carol', 'carol-password');

  /** alice owns; bob reads; carol writes; anonymous reads public repositories. */
  const rule = (viewer: Actor | undefined) => {
    if (viewer?.userId === alice.id) return permission('owner');
    if (viewer?.userId === carol.id) return permission('write');
    return permission('read');
  };
  const demo = repos.add(repository(10, 'alice', 'demo', { ownerId: alice.id, empty: false }), rule);
  const bobFork = repos.add(repository(20, 'bob', 'demo', { ownerId: bob.id, fork: true, parentId: 10, empty: false }), (viewer) =>
    viewer?.userId === bob.id ? permission('owner') : permission('read'),
  );
  const carolFork = repos.add(repository(21, 'carol', 'renamed-fork', { ownerId: carol.id, fork: true, parentId: 10, empty: false }), (viewer) =>
    viewer?.userId === carol.id ? permission('owner') : permission('read'),
  );
  repos.add(repository(30, 'alice', 'other', { ownerId: alice.id }), rule);
  repos.add(repository(12, 'alice', 'nocode', { ownerId: alice.id, units: [{ key: 'repo.pulls' }] }), () => permission('read', ['repo.pulls']));
  let gw: TestGateway;

  function issue(index: number, fields: Partial<Issue> = {}): Issue {
    return {
      id: 100 + index,
      repoId: demo.id,
      index,
      posterId: bob.id,
      title: `pull ${index}`,
      body: 'please merge',
      ref: '',
      isClosed: false,
      isPull: true,
      isLocked: false,
      labels: [],
      milestone: undefined,
      assigneeIds: [],
      numComments: 2,
      contentVersion: 1,
      created: new Date('2025-01-02T03:04:05Z'),
      updated: new Date('2025-01-03T03:04:05Z'),
      closedAt: undefined,
      deadline: undefined,
      timeEstimate: 0,
      pinOrder: 0,
      originalAuthor: '',
      originalAuthorId: 0,
      ...fields,
    };
  }

  function pull(index: number, fields: Partial<PullRequest> = {}, issueFields: Partial<Issue> = {}): PullRequest {
    return {
      issue: issue(index, issueFields),
      headRepoId: demo.id,
      headBranch: 'feature',
      baseBranch: 'main',
      mergeBase: MERGE_BASE,
      headCommitId: HEAD_SHA,
      status: 'mergeable',
      conflictedFiles: [],
      hasMerged: false,
      mergedCommitId: '',
      mergerId: 0,
      mergedAt: undefined,
      allowMaintainerEdit: false,
      requestedReviewerIds: [],
      requestedReviewerTeamIds: [],
      ...fields,
    };
  }

  function review(id: number, fields: Partial<Review> = {}): Review {
    return {
      id,
      issueId: 101,
      reviewerId: carol.id,
      state: 'APPROVED',
      body: 'looks good',
      commitId: HEAD_SHA,
      official: true,
      stale: false,
      dismissed: false,
      commentsCount: 0,
      submitted: new Date('2025-02-01T00:00:00Z'),
      updated: new Date('2025-02-01T00:00:00Z'),
      reviewerTeamId: 0,
      timelineCommentId: 0,
      ...fields,
    };
  }

  /** Branches as git-storage has them: main and feature of alice/demo, topic of bob/demo. */
  function answerBranches(): void {
    const heads: Record<string, string> = { '10:main': BASE_SHA, '10:feature': HEAD_SHA, '20:topic': HEAD_SHA };
    refs.answers.getBranch = async ({ repository, name }) => {
      const sha = heads[`${repository?.repoId}:${name}`];
      if (sha === undefined) throw CairnError.notFound(`branch ${name} not found`);
      return { branch: { name, commit: { sha, treeSha: '', parentShas: [], author: undefined, committer: undefined, message: '', signature: '', signedPayload: '', additions: 0, deletions: 0, files: [], verification: undefined } } };
    };
  }

  beforeAll(async () => {
    gw = await startTestGateway({ accounts });
  });
  afterAll(() => gw.close());
  beforeEach(() => {
    repos.reset();
    for (const fake of [pulls, reviews, gitMerge, refs, labels]) fake.reset();
    answerBranches();
    reviews.answers.listReviews = async () => ({ reviews: [review(1), review(2, { state: 'REQUEST_REVIEW' }), review(3, { state: 'COMMENT' })], total: 3 });
    gitMerge.answers.listChangedFiles = async () => ({ files: [], total: 3, additions: 10, deletions: 4 });
  });

  async function call(path: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
    const res = await gw.fetch(path, { redirect: 'manual', ...init });
    const text = await res.text();
    const body: unknown = (res.headers.get('content-type') ?? '').includes('json') && text !== '' ? JSON.parse(text) : text;
    giteaApi.expectResponse({ method: init.method ?? 'GET', path, status: res.status, body: body === '' ? undefined : body });
    return { status: res.status, headers: res.headers, body, text };
  }

  describe('GET /repos/{owner}/{repo}/pulls/{index}', () => {
    it("answers Gitea's PullRequest with the branches' heads, the diff totals and the submitted reviews counted", async () => {
      pulls.answers.getPull = async () => ({ pull: pull(1, { requestedReviewerIds: [alice.id] }) });
      const res = await call('/api/v1/repos/alice/demo/pulls/1', { headers: { Authorization: BOB } });
      expect(res.status).toBe(200);
      expectExactGiteaShape('PullRequest', res.body);
      expect(res.body).toMatchObject({
        id: 101,
        number: 1,
        url: `${ROOT_URL}alice/demo/pulls/1`,
        html_url: `${ROOT_URL}alice/demo/pulls/1`,
        diff_url: `${ROOT_URL}alice/demo/pulls/1.diff`,
        patch_url: `${ROOT_URL}alice/demo/pulls/1.patch`,
        user: { login: 'bob' },
        state: 'open',
        draft: false,
        mergeable: true,
        merged: false,
        merged_at: null,
        merge_commit_sha: null,
        merged_by: null,
        comments: 2,
        review_comments: 2,
        additions: 10,
        deletions: 4,
        changed_files: 3,
        merge_base: MERGE_BASE,
        requested_reviewers: [{ login: 'alice' }],
        requested_reviewers_teams: [],
        base: { label: 'main', ref: 'main', sha: BASE_SHA, repo_id: 10, repo: { full_name: 'alice/demo' } },
        head: { label: 'feature', ref: 'feature', sha: HEAD_SHA, repo_id: 10, repo: { full_name: 'alice/demo' } },
      });
      expect(pulls.calls('getPull')).toEqual([expect.objectContaining({ index: 1 })]);
      expect(gitMerge.calls<ListChangedFilesRequest>('listChangedFiles')).toEqual([
        expect.objectContaining({ repository: { storage: 'default', repoId: 10 }, base: MERGE_BASE, head: HEAD_SHA }),
      ]);
    });

    it('shows a work in progress as a draft that cannot be merged, and a conflict as not mergeable', async () => {
      pulls.answers.getPull = async ({ index }) =>
        index === 1 ? { pull: pull(1, {}, { title: '[wip] not yet' }) } : { pull: pull(2, { status: 'conflict' }) };
      const wip = await call('/api/v1/repos/alice/demo/pulls/1');
      expect(wip.body).toMatchObject({ draft: true, mergeable: false });
      const conflict = await call('/api/v1/repos/alice/demo/pulls/2');
      expect(conflict.body).toMatchObject({ draft: false, mergeable: false });
    });

    it('shows a merged pull request with its merger, and a deleted head branch as refs/pull/<n>/head', async () => {
      pulls.answers.getPull = async () => ({
        pull: pull(4, { headBranch: 'gone', hasMerged: true, mergerId: carol.id, mergedCommitId: 'd'.repeat(40), mergedAt: new Date('2025-03-01T00:00:00Z') }, { isClosed: true, closedAt: new Date('2025-03-01T00:00:00Z') }),
      });
      const res = await call('/api/v1/repos/alice/demo/pulls/4');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        state: 'closed',
        merged: true,
        merged_at: '2025-03-01T00:00:00Z',
        closed_at: '2025-03-01T00:00:00Z',
        merge_commit_sha: 'd'.repeat(40),
        merged_by: { login: 'carol' },
        head: { label: 'gone', ref: 'refs/pull/4/head', sha: HEAD_SHA },
      });
    });

    it('shows a fork the caller may read as the head repository', async () => {
      pulls.answers.getPull = async () => ({ pull: pull(5, { headRepoId: bobFork.id, headBranch: 'topic' }) });
      const res = await call('/api/v1/repos/alice/demo/pulls/5');
      expect(res.body).toMatchObject({ head: { label: 'topic', ref: 'topic', repo_id: 20, repo: { full_name: 'bob/demo', fork: true } } });
    });

    it("answers the service's NOT_FOUND as Gitea's bare 404, and 404 when the code unit is off", async () => {
      pulls.answers.getPull = async () => {
        throw CairnError.notFound('pull request not found');
      };
      const missing = await call('/api/v1/repos/alice/demo/pulls/9');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ errors: null, message: 'not found', url: `${ROOT_URL}api/swagger` });
      const noCode = await call('/api/v1/repos/alice/nocode/pulls/1');
      expect(noCode.status).toBe(404);
      expect(pulls.calls('getPull')).toHaveLength(1);
    });
  });

  describe('GET /repos/{owner}/{repo}/pulls', () => {
    it('lists without diff totals, with the filters sent and the paging headers set', async () => {
      pulls.answers.listPulls = async () => ({ pulls: [pull(1), pull(2, { headRepoId: bobFork.id, headBranch: 'topic' })], total: 7 });
      const res = await call('/api/v1/repos/alice/demo/pulls?state=closed&sort=oldest&labels=3&labels=4&milestone=5&poster=bob&limit=2&page=2');
      expect(res.status).toBe(200);
      const list = res.body as Array<Record<string, unknown>>;
      expect(list).toHaveLength(2);
      for (const item of list) {
        expectExactGiteaShape('PullRequest', item);
        expect(item).not.toHaveProperty('additions');
      }
      expect(list[0]).toMatchObject({ number: 1, head: { sha: HEAD_SHA } });
      expect(list[1]).toMatchObject({ head: { repo: { full_name: 'bob/demo' } } });
      expect(res.headers.get('x-total-count')).toBe('7');
      expect(res.headers.get('link')).toContain('rel="next"');
      expect(pulls.calls<ListPullsRequest>('listPulls')).toEqual([
        expect.objectContaining({ state: 'closed', sort: 'oldest', labelIds: [3, 4], milestoneId: 5, posterId: bob.id, page: { page: 2, limit: 2 } }),
      ]);
      expect(gitMerge.calls('listChangedFiles')).toHaveLength(0);
    });

    it('answers an unknown poster 400 and a label that is no number 422, asking nothing', async () => {
      expect((await call('/api/v1/repos/alice/demo/pulls?poster=nobody')).status).toBe(400);
      expect((await call('/api/v1/repos/alice/demo/pulls?labels=x')).status).toBe(422);
      expect(pulls.calls('listPulls')).toHaveLength(0);
    });
  });

  describe('POST /repos/{owner}/{repo}/pulls', () => {
    beforeEach(() => {
      pulls.answers.createPull = async (request) => ({ pull: pull(6, { headRepoId: request.head?.repository?.id ?? demo.id, headBranch: request.headBranch, baseBranch: request.baseBranch }) });
    });

    it('creates a pull request from a branch of the repository with names resolved', async () => {
      const res = await call(
        '/api/v1/repos/alice/demo/pulls',
        jsonBody('POST', { head: 'feature', base: 'main', title: 'Add it', body: 'text', assignees: ['carol'], labels: [1], milestone: 2, reviewers: ['alice'], due_date: '2025-05-01T00:00:00Z' }, { Authorization: BOB }),
      );
      expect(res.status).toBe(201);
      expectExactGiteaShape('PullRequest', res.body);
      const [request] = pulls.calls<CreatePullRequest>('createPull');
      expect(pulls.options.createPull).toEqual([{ deadlineMs: 60_000 }]);
      expect(request).toMatchObject({
        head: undefined,
        headBranch: 'feature',
        baseBranch: 'main',
        title: 'Add it',
        body: 'text',
        assigneeIds: [carol.id],
        labelIds: [1],
        milestoneId: 2,
        reviewerIds: [alice.id],
        deadline: new Date('2025-05-01T00:00:00Z'),
      });
      expect(request.scope?.viewer?.userId).toBe(bob.id);
    });

    it('finds the fork `owner:branch` names, by name or among the forks', async () => {
      const byName = await call('/api/v1/repos/alice/demo/pulls', jsonBody('POST', { head: 'bob:topic', base: 'main', title: 'From the fork' }, { Authorization: BOB }));
      expect(byName.status).toBe(201);
      expect(pulls.calls<CreatePullRequest>('createPull')[0].head?.repository?.id).toBe(bobFork.id);
      repos.answers.listForks = async () => ({ repositories: [{ repository: carolFork, permission: permission('read') }], total: 1 });
      const listed = await call('/api/v1/repos/alice/demo/pulls', jsonBody('POST', { head: 'carol:topic', base: 'main', title: 'From the other fork' }, { Authorization: CAROL }));
      expect(listed.status).toBe(201);
      expect(pulls.calls<CreatePullRequest>('createPull')[1].head?.repository?.id).toBe(carolFork.id);
      const named = await call('/api/v1/repos/alice/demo/pulls', jsonBody('POST', { head: 'carol/renamed-fork:topic', base: 'main', title: 'Named' }, { Authorization: CAROL }));
      expect(named.status).toBe(201);
      expect(pulls.calls<CreatePullRequest>('createPull')[2].head?.repository?.id).toBe(carolFork.id);
      // A repository that is no fork of this one is not a head.
      expect((await call('/api/v1/repos/alice/demo/pulls', jsonBody('POST', { head: 'alice/other:topic', base: 'main', title: 'x' }, { Authorization: ALICE }))).status).toBe(404);
      // The repository's own owner is the repository itself.
      await call('/api/v1/repos/alice/demo/pulls', jsonBody('POST', { head: 'alice:feature', base: 'main', title: 'Own' }, { Authorization: ALICE }));
      expect(pulls.calls<CreatePullRequest>('createPull')[3].head).toBeUndefined();
    });

    it("answers bad input with Gitea's 4xx and asks the service nothing", async () => {
      const send = (body: unknown) => call('/api/v1/repos/alice/demo/pulls', jsonBody('POST', body, { Authorization: BOB }));
      expect(await send({ head: 'main', base: 'main', title: 'Same' })).toMatchObject({
        status: 422,
        body: { message: 'Invalid PullRequest: There are no changes between the head and the base' },
      });
      expect(await send({ head: 'feature', base: 'main' })).toMatchObject({ status: 422, body: { message: '[Title]: Required' } });
      expect(await send({ head: 'feature', title: 'x' })).toMatchObject({ status: 422, body: { message: '[Base]: Required' } });
      expect(await send({ head: 7, base: 'main', title: 'x' })).toMatchObject({ status: 422 });
      expect(await send({ head: 'a:b:c', base: 'main', title: 'x' })).toMatchObject({ status: 404 });
      repos.answers.listForks = async () => ({ repositories: [], total: 0 });
      expect(await send({ head: 'nobody:topic', base: 'main', title: 'x' })).toMatchObject({ status: 404 });
      expect(await send({ head: 'feature', base: 'main', title: 'x', assignees: ['nobody'] })).toMatchObject({
        status: 422,
        body: { message: 'Assignee does not exist: [name: user does not exist [uid: 0, name: nobody]]' },
      });
      expect((await call('/api/v1/repos/alice/demo/pulls', jsonBody('POST', { head: 'feature', base: 'main', title: 'x' }))).status).toBe(401);
      expect(pulls.calls('createPull')).toHaveLength(0);
    });

    it("answers the service's refusals: a missing branch or milestone 404, an existing pull request 409", async () => {
      const send = () => call('/api/v1/repos/alice/demo/pulls', jsonBody('POST', { head: 'feature', base: 'main', title: 'x', milestone: 99 }, { Authorization: BOB }));
      pulls.answers.createPull = async () => {
        throw CairnError.notFound('milestone does not exist');
      };
      expect((await send()).status).toBe(404);
      pulls.answers.createPull = async () => {
        throw CairnError.exists('pull request already exists for these targets');
      };
      expect(await send()).toMatchObject({ status: 409, body: { message: 'pull request already exists for these targets' } });
    });
  });

  describe('PATCH /repos/{owner}/{repo}/pulls/{index}', () => {
    it('sends what changes, replaces labels for writers and answers 201', async () => {
      pulls.answers.editPull = async () => ({ pull: pull(1, { baseBranch: 'dev' }) });
      labels.answers.replaceIssueLabels = async () => ({
        labels: [{ id: 3, repoId: 10, orgId: 0, name: 'bug', color: 'ff0000', description: '', exclusive: false, isArchived: false, numIssues: 1, numClosedIssues: 0, archivedAt: undefined }],
      });
      const res = await call('/api/v1/repos/alice/demo/pulls/1', jsonBody('PATCH', { title: 'New', base: 'dev', labels: [3], state: 'closed', allow_maintainer_edit: true }, { Authorization: CAROL }));
      expect(res.status).toBe(201);
      expectExactGiteaShape('PullRequest', res.body);
      expect(res.body).toMatchObject({ base: { ref: 'dev' }, labels: [{ id: 3, name: 'bug' }] });
      const [request] = pulls.calls<EditPullRequest>('editPull');
      expect(request).toMatchObject({ index: 1, title: 'New', baseBranch: 'dev', state: 'closed', allowMaintainerEdit: true });
      expect(request.fields.sort()).toEqual(['allow_maintainer_edit', 'base', 'state', 'title']);
      expect(labels.calls('replaceIssueLabels')).toEqual([expect.objectContaining({ index: 1, labelIds: [3] })]);
    });

    it("answers a merged pull request's state change 412 and a refusal without message a bare 403", async () => {
      pulls.answers.editPull = async () => {
        throw CairnError.precondition('cannot change state of this pull request, it was already merged');
      };
      expect(await call('/api/v1/repos/alice/demo/pulls/1', jsonBody('PATCH', { state: 'open' }, { Authorization: CAROL }))).toMatchObject({
        status: 412,
        body: { message: 'cannot change state of this pull request, it was already merged' },
      });
      pulls.answers.editPull = async () => {
        throw CairnError.denied('');
      };
      const denied = await call('/api/v1/repos/alice/demo/pulls/1', jsonBody('PATCH', { title: 'x' }, { Authorization: BOB }));
      expect(denied.status).toBe(403);
      expect(denied.text).toBe('');
    });
  });

  describe('merging', () => {
    it('merges with the style and the doer as merger, accepting legacy CamelCase keys', async () => {
      pulls.answers.mergePull = async () => ({ pull: pull(1, { hasMerged: true }), scheduled: false });
      const res = await call(
        '/api/v1/repos/alice/demo/pulls/1/merge',
        jsonBody('POST', { Do: 'squash', MergeTitleField: ' Squashed ', merge_message_field: 'body', head_commit_id: HEAD_SHA, force_merge: true, delete_branch_after_merge: true }, { Authorization: CAROL }),
      );
      expect(res.status).toBe(200);
      expect(pulls.calls<MergePullRequest>('mergePull')).toEqual([
        expect.objectContaining({
          index: 1,
          style: 'squash',
          title: 'Squashed',
          message: 'body',
          headCommitId: HEAD_SHA,
          forceMerge: true,
          deleteBranchAfterMerge: true,
          mergerName: 'carol',
          mergerEmail: 'carol@example.com',
        }),
      ]);
      await call('/api/v1/repos/alice/demo/pulls/1/merge', jsonBody('POST', { do: 'manually-merged', merge_commit_id: HEAD_SHA }, { Authorization: CAROL }));
      expect(pulls.calls<MergePullRequest>('mergePull')[1]).toMatchObject({ style: 'manually-merged', mergeCommitId: HEAD_SHA });
      // A merge runs git: it waits [rpc] GIT_WRITE_DEADLINE_MS, not a lookup's DEADLINE_MS.
      expect(pulls.options.mergePull).toEqual([{ deadlineMs: 60_000 }, { deadlineMs: 60_000 }]);
    });

    it("answers a missing or unknown style 422, refusals 405 with Gitea's reason and conflicts 409", async () => {
      const merge = (body: unknown) => call('/api/v1/repos/alice/demo/pulls/1/merge', jsonBody('POST', body, { Authorization: CAROL }));
      expect(await merge({})).toMatchObject({ status: 422, body: { message: '[Do]: Required' } });
      expect(await merge({ do: 'octopus' })).toMatchObject({ status: 422, body: { message: '[Do]: In' } });
      expect(pulls.calls('mergePull')).toHaveLength(0);
      pulls.answers.mergePull = async () => {
        throw CairnError.precondition('Please try again later');
      };
      expect(await merge({ do: 'merge' })).toMatchObject({ status: 405, body: { message: 'Please try again later' } });
      pulls.answers.mergePull = async () => {
        throw CairnError.precondition('manually-merged is not allowed an allowed merge style for this repository');
      };
      expect(await merge({ do: 'manually-merged' })).toMatchObject({ status: 405, body: { message: 'manually-merged is not allowed an allowed merge style for this repository' } });
      pulls.answers.mergePull = async () => {
        throw new CairnError(Code.ABORTED, 'Merge Conflict Error: a.txt');
      };
      expect((await merge({ do: 'merge' })).status).toBe(409);
    });

    it('answers a scheduled merge 201 without a body, a second schedule 409, and cancels with DELETE', async () => {
      const merge = () => call('/api/v1/repos/alice/demo/pulls/1/merge', jsonBody('POST', { Do: 'merge', merge_when_checks_succeed: true }, { Authorization: CAROL }));
      pulls.answers.mergePull = async () => ({ pull: pull(1), scheduled: true });
      const scheduled = await merge();
      expect({ status: scheduled.status, text: scheduled.text }).toEqual({ status: 201, text: '' });
      expect(pulls.calls<MergePullRequest>('mergePull')[0]).toMatchObject({ mergeWhenChecksSucceed: true, style: 'merge' });
      pulls.answers.mergePull = async () => {
        throw CairnError.exists('pull request is already scheduled to auto merge when checks succeed [pull_id: 1]');
      };
      expect(await merge()).toMatchObject({ status: 409, body: { message: 'pull request is already scheduled to auto merge when checks succeed [pull_id: 1]' } });

      const cancel = () => call('/api/v1/repos/alice/demo/pulls/1/merge', { method: 'DELETE', headers: { Authorization: CAROL } });
      pulls.answers.cancelAutoMerge = async () => ({});
      expect((await cancel()).status).toBe(204);
      expect(pulls.calls('cancelAutoMerge')).toEqual([expect.objectContaining({ index: 1 })]);
      pulls.answers.cancelAutoMerge = async () => {
        throw CairnError.notFound('no scheduled auto merge');
      };
      expect((await cancel()).status).toBe(404);
      pulls.answers.cancelAutoMerge = async () => {
        throw CairnError.denied('user has no permission to cancel the scheduled auto merge');
      };
      expect(await cancel()).toMatchObject({ status: 403, body: { message: 'user has no permission to cancel the scheduled auto merge' } });
      expect((await call('/api/v1/repos/alice/demo/pulls/1/merge', { method: 'DELETE' })).status).toBe(401);
    });

    it('says 204 for a merged pull request and 404 for one that is not', async () => {
      pulls.answers.getPull = async ({ index }) => ({ pull: pull(index, { hasMerged: index === 1 }) });
      expect((await call('/api/v1/repos/alice/demo/pulls/1/merge')).status).toBe(204);
      expect((await call('/api/v1/repos/alice/demo/pulls/2/merge')).status).toBe(404);
    });
  });

  describe('comparisons', () => {
    it('streams the diff and the patch of merge base...refs/pull/<n>/head', async () => {
      pulls.answers.getPull = async () => ({ pull: pull(3) });
      gitMerge.answers.getDiff = (request) =>
        (async function* (): AsyncIterable<GetDiffResponse> {
          yield { data: Buffer.from(`${request.format} of ${request.base}...${request.head}\n`) };
          yield { data: Buffer.from('more\n') };
        })();
      const diff = await gw.fetch('/api/v1/repos/alice/demo/pulls/3.diff?binary=true');
      expect(diff.status).toBe(200);
      expect(diff.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await diff.text()).toBe(`diff of ${MERGE_BASE}...refs/pull/3/head\nmore\n`);
      const patch = await gw.fetch('/api/v1/repos/alice/demo/pulls/3.patch');
      expect(await patch.text()).toContain(`patch of ${MERGE_BASE}`);
      expect(gitMerge.calls('getDiff')).toEqual([expect.objectContaining({ binary: true }), expect.objectContaining({ binary: false, format: 'patch' })]);
      expect((await gw.fetch('/api/v1/repos/alice/demo/pulls/3.txt')).status).toBe(404);
    });

    it("lists changed files with Gitea's statuses and links, and commits, with the page headers", async () => {
      pulls.answers.getPull = async () => ({ pull: pull(3) });
      gitMerge.answers.listChangedFiles = async () => ({
        files: [
          { filename: 'a b.txt', status: 'modified', additions: 2, deletions: 1, previousFilename: '' },
          { filename: 'gone.txt', status: 'removed', additions: 0, deletions: 3, previousFilename: '' },
          { filename: 'new.txt', status: 'renamed', additions: 0, deletions: 0, previousFilename: 'old.txt' },
        ],
        total: 3,
        additions: 2,
        deletions: 4,
      });
      const files = await call('/api/v1/repos/alice/demo/pulls/3/files?limit=2', { headers: { Authorization: BOB } });
      expect(files.status).toBe(200);
      const list = files.body as Array<Record<string, unknown>>;
      for (const item of list) expectExactGiteaShape('ChangedFile', item);
      expect(list[0]).toMatchObject({
        filename: 'a b.txt',
        status: 'changed',
        changes: 3,
        html_url: `${ROOT_URL}alice/demo/src/commit/${HEAD_SHA}/a%20b.txt`,
        contents_url: `${ROOT_URL}api/v1/repos/alice/demo/contents/a%20b.txt?ref=${HEAD_SHA}`,
        raw_url: `${ROOT_URL}alice/demo/raw/commit/${HEAD_SHA}/a%20b.txt`,
      });
      expect(list[1]).toMatchObject({ status: 'deleted' });
      expect(list[2]).toMatchObject({ status: 'renamed', previous_filename: 'old.txt' });
      expect(files.headers.get('x-total-count')).toBe('3');
      expect(files.headers.get('x-hasmore')).toBe('true');
      expect(gitMerge.calls<ListChangedFilesRequest>('listChangedFiles')[0]).toMatchObject({ base: 'refs/heads/main', head: 'refs/pull/3/head', page: { page: 1, limit: 2 } });

      gitMerge.answers.listCommitsBetween = async () => ({ commits: [], total: 0 });
      const commits = await call('/api/v1/repos/alice/demo/pulls/3/commits?files=false');
      expect(commits).toMatchObject({ status: 200, body: [] });
      expect(gitMerge.calls<ListCommitsBetweenRequest>('listCommitsBetween')[0]).toMatchObject({ base: 'refs/heads/main', head: 'refs/pull/3/head', withFiles: true });
    });

    it('compares a merged pull request from its merge base', async () => {
      pulls.answers.getPull = async () => ({ pull: pull(3, { hasMerged: true }) });
      gitMerge.answers.listCommitsBetween = async () => ({ commits: [], total: 0 });
      await call('/api/v1/repos/alice/demo/pulls/3/commits');
      expect(gitMerge.calls<ListCommitsBetweenRequest>('listCommitsBetween')[0]).toMatchObject({ base: MERGE_BASE });
    });

    it('finds the pull request of two branches, a fork head by `owner:branch`', async () => {
      // The service matches the head repository too (head_repo_id; 0 would be the base repository).
      pulls.answers.getPullByBranches = async ({ headBranch, headRepoId }) => {
        if (headBranch === 'topic' && headRepoId === bobFork.id) return { pull: pull(5, { headRepoId: bobFork.id, headBranch }) };
        if (headBranch === 'feature' && headRepoId !== bobFork.id) return { pull: pull(1, { headBranch }) };
        throw CairnError.notFound('pull request does not exist');
      };
      const same = await call('/api/v1/repos/alice/demo/pulls/main/feature');
      expect(same).toMatchObject({ status: 200, body: { number: 1 } });
      const fork = await call('/api/v1/repos/alice/demo/pulls/main/bob:topic');
      expect(fork).toMatchObject({ status: 200, body: { number: 5 } });
      expect((await call('/api/v1/repos/alice/demo/pulls/main/bob/demo:topic')).body).toMatchObject({ number: 5 });
      expect((await call('/api/v1/repos/alice/demo/pulls/main/nobody:topic')).status).toBe(404);
      // The same branch from another repository is not that pull request.
      expect((await call('/api/v1/repos/alice/demo/pulls/main/topic')).status).toBe(404);
      expect(pulls.calls('getPullByBranches')).toEqual([
        expect.objectContaining({ baseBranch: 'main', headBranch: 'feature' }),
        expect.objectContaining({ baseBranch: 'main', headBranch: 'topic', headRepoId: bobFork.id }),
        expect.objectContaining({ baseBranch: 'main', headBranch: 'topic', headRepoId: bobFork.id }),
        expect.objectContaining({ baseBranch: 'main', headBranch: 'topic' }),
      ]);
    });
  });

  describe('reviews', () => {
    it("lists reviews as Gitea's PullReview with X-Total-Count", async () => {
      const res = await call('/api/v1/repos/alice/demo/pulls/1/reviews', { headers: { Authorization: BOB } });
      expect(res.status).toBe(200);
      const list = res.body as Array<Record<string, unknown>>;
      for (const item of list) expectExactGiteaShape('PullReview', item);
      expect(list[0]).toMatchObject({ id: 1, state: 'APPROVED', user: { login: 'carol' }, team: null, pull_request_url: `${ROOT_URL}alice/demo/pulls/1` });
      expect(res.headers.get('x-total-count')).toBe('3');
    });

    it('creates a review with the state its event asks for; the service\'s refusals are 422', async () => {
      reviews.answers.createReview = async (request) => ({ review: review(9, { state: request.state === '' ? 'PENDING' : request.state }) });
      const send = (body: unknown) => call('/api/v1/repos/alice/demo/pulls/1/reviews', jsonBody('POST', body, { Authorization: CAROL }));
      const approved = await send({ event: 'APPROVED', commit_id: HEAD_SHA, comments: [{ path: 'a.txt', body: 'here', new_position: 3 }] });
      expect(approved.status).toBe(200);
      expectExactGiteaShape('PullReview', approved.body);
      expect(reviews.calls('createReview')[0]).toMatchObject({ state: 'APPROVED', commitId: HEAD_SHA, comments: [{ path: 'a.txt', body: 'here', oldPosition: 0, newPosition: 3 }] });
      expect((await send({ event: 'PENDING', body: 'later' })).body).toMatchObject({ state: 'PENDING' });
      expect((await send({ event: 'REQUEST_REVIEW', body: 'later' })).body).toMatchObject({ state: 'PENDING' });
      expect(reviews.calls('createReview').slice(1)).toEqual([expect.objectContaining({ state: '' }), expect.objectContaining({ state: '' })]);
      expect(await send({ event: 'COMMENT', comments: [{ path: 3 }] })).toMatchObject({ status: 422 });
      expect(await send({ event: 'COMMENT', comments: 'many' })).toMatchObject({ status: 422 });
      expect(reviews.calls('createReview')).toHaveLength(3);
      reviews.answers.createReview = async () => {
        throw CairnError.invalid('review event REQUEST_CHANGES requires a body');
      };
      expect(await send({ event: 'REQUEST_CHANGES' })).toMatchObject({ status: 422, body: { message: 'review event REQUEST_CHANGES requires a body' } });
    });

    it('submits a pending review with the state its event asks for', async () => {
      reviews.answers.submitReview = async ({ id, state }) => ({ review: review(id, { state }) });
      const submit = (id: number, body: unknown) => call(`/api/v1/repos/alice/demo/pulls/1/reviews/${id}`, jsonBody('POST', body, { Authorization: CAROL }));
      expect(await submit(5, { event: 'COMMENT', body: 'ok' })).toMatchObject({ status: 200, body: { id: 5, state: 'COMMENT' } });
      expect(reviews.calls('submitReview')).toEqual([expect.objectContaining({ index: 1, id: 5, state: 'COMMENT', body: 'ok' })]);
      reviews.answers.submitReview = async () => {
        throw CairnError.invalid('only a pending review can be submitted');
      };
      expect(await submit(6, { event: 'APPROVED' })).toMatchObject({ status: 422, body: { message: 'only a pending review can be submitted' } });
    });

    it("dismisses and undismisses, the service's refusals being 403 with Gitea's message", async () => {
      reviews.answers.dismissReview = async ({ id }) => ({ review: review(id, { dismissed: true }) });
      reviews.answers.undismissReview = async ({ id }) => ({ review: review(id, { dismissed: false }) });
      const dismissed = await call('/api/v1/repos/alice/demo/pulls/1/reviews/1/dismissals', jsonBody('POST', { message: 'stale', priors: true }, { Authorization: ALICE }));
      expect(dismissed).toMatchObject({ status: 200, body: { dismissed: true } });
      expect(reviews.calls('dismissReview')).toEqual([expect.objectContaining({ id: 1, message: 'stale', priors: true })]);
      const undismissed = await call('/api/v1/repos/alice/demo/pulls/1/reviews/1/undismissals', { method: 'POST', headers: { Authorization: ALICE } });
      expect(undismissed).toMatchObject({ status: 200, body: { dismissed: false } });
      reviews.answers.dismissReview = async () => {
        throw CairnError.denied('Must be repo admin');
      };
      const byWriter = await call('/api/v1/repos/alice/demo/pulls/1/reviews/1/dismissals', jsonBody('POST', { message: 'stale' }, { Authorization: CAROL }));
      expect(byWriter).toMatchObject({ status: 403, body: { message: 'Must be repo admin' } });
      expect((await call('/api/v1/repos/alice/demo/pulls/1/reviews/1/dismissals', jsonBody('POST', { priors: 'yes' }, { Authorization: ALICE }))).status).toBe(422);
    });

    it('lists a review\'s comments and deletes a review', async () => {
      reviews.answers.getReview = async ({ id }) => ({ review: review(id, { state: 'PENDING' }) });
      reviews.answers.listReviewComments = async () => ({
        comments: [
          {
            id: 40,
            reviewId: 8,
            posterId: carol.id,
            body: 'typo',
            path: 'a.txt',
            commitId: HEAD_SHA,
            originalCommitId: BASE_SHA,
            position: 3,
            originalPosition: 0,
            diffHunk: '@@ -1 +1 @@',
            created: new Date('2025-02-01T00:00:00Z'),
            updated: new Date('2025-02-01T00:00:00Z'),
            resolverId: 0,
          },
        ],
      });
      const res = await call('/api/v1/repos/alice/demo/pulls/1/reviews/8/comments', { headers: { Authorization: CAROL } });
      expect(res.status).toBe(200);
      const [first] = res.body as Array<Record<string, unknown>>;
      expectExactGiteaShape('PullReviewComment', first);
      expect(first).toMatchObject({ id: 40, pull_request_review_id: 8, position: 3, resolver: null, html_url: `${ROOT_URL}alice/demo/pulls/1/files#issuecomment-40` });
      reviews.answers.deleteReview = async () => ({});
      expect((await call('/api/v1/repos/alice/demo/pulls/1/reviews/8', { method: 'DELETE', headers: { Authorization: CAROL } })).status).toBe(204);
    });

    it('requests reviewers by name or e-mail and cancels requests; an unknown one is 404', async () => {
      reviews.answers.requestReviewers = async ({ reviewerIds }) => ({ reviews: reviewerIds.map((id, n) => review(20 + n, { reviewerId: id, state: 'REQUEST_REVIEW' })) });
      reviews.answers.cancelReviewRequests = async () => ({});
      const added = await call('/api/v1/repos/alice/demo/pulls/1/requested_reviewers', jsonBody('POST', { reviewers: ['carol', 'alice@example.com'] }, { Authorization: BOB }));
      expect(added.status).toBe(201);
      expect(added.body).toMatchObject([{ state: 'REQUEST_REVIEW', user: { login: 'carol' } }, { user: { login: 'alice' } }]);
      expect(reviews.calls('requestReviewers')).toEqual([expect.objectContaining({ reviewerIds: [carol.id, alice.id] })]);
      const unknown = await call('/api/v1/repos/alice/demo/pulls/1/requested_reviewers', jsonBody('POST', { reviewers: ['nobody'] }, { Authorization: BOB }));
      expect(unknown).toMatchObject({ status: 404, body: { message: "User 'nobody' not exist" } });
      expect((await call('/api/v1/repos/alice/demo/pulls/1/requested_reviewers', jsonBody('DELETE', { reviewers: ['carol'] }, { Authorization: BOB }))).status).toBe(204);
      expect(reviews.calls('cancelReviewRequests')).toEqual([expect.objectContaining({ reviewerIds: [carol.id] })]);
    });
  });
});
