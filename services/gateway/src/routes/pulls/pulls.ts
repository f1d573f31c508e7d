/**
 * Pull requests (routers/api/v1/repo/pull.go): list, create, get, edit, the pull request of two branches, the
 * `.diff`/`.patch` download, changed files, commits, and merging. The issues service keeps the pull requests and
 * decides (permissions, mergeability, merge rules, Gitea's messages); git-storage answers comparisons and diffs of
 * `refs/pull/<n>/head`, the head the base repository keeps. This file binds bodies and queries as Gitea does,
 * resolves names to ids and answers Gitea's statuses:
 * - create 201 (`head` equal to `base`: 422 `Invalid PullRequest: There are no changes between the head and the
 *   base`; a missing branch, fork, milestone or team reviewer: 404; an open pull request with the same branches:
 *   409), with `reviewers` and `team_reviewers` asked to review;
 * - list with Gitea's filters, `base_branch` included;
 * - edit 201 (Gitea's status), with labels replaced when a writer sends them; a body with a stale `content_version`
 *   409;
 * - update 200 (`style=rebase` or a merge of the base into the head, as the doer), 422 when merged, closed or
 *   already up to date, 409 on a conflict, a bare 403 without the right to push to the head branch;
 * - merge 200, or 405 with Gitea's reason (style not allowed, not mergeable: `Please try again later`, already
 *   merged, protection unmet, `wont sign: nokey`), 409 when the merge conflicts or the head moved; `GET …/merge` 204
 *   when merged, 404 when not; `merge_when_checks_succeed` 201 when scheduled (409 when already), `DELETE …/merge`
 *   204 when a schedule was cancelled.
 */
import { EXPOSE_HEADERS_HEADER, type GoField, HttpError, go, goFormBool, goFormString, goStruct } from '@cairn/http';
import type { PullRequest } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code } from '@cairn/rpc';
import { UNIT_PULLS, gitRepositoryOf, pullHeadRef, repoApiUrl, repoHtmlUrl, repoLinks, toApiCommits, toApiPullRequests } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { assertPublicOnlyMayReach } from '../../api/repo-context';
import { type ApiContext, type ApiReply, doerOf, json, noContent, repoOf } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';
import { startStream } from '../../http/stream';
import { canWriteUnit, repoScopeOf } from '../../issues/scope';
import { TRACKER_ERRORS } from '../../issues/tracker-answers';
import {
  type WrittenTime,
  accountIdByName,
  assigneeIds,
  endOfWrittenDay,
  isGoZeroTime,
  pageRequest,
  reviewerIdsByName,
  userNotExist,
  writtenTimePtr,
} from '../issues/issue-params';
import { answering, doerSignature, flagOnByDefault } from '../repos/git-context';
import { PULL_CHANGER, PULL_READER, answerPull, pullHandler, pullIndexOf, pullOf, teamNamed } from './pull-context';
import { parseHead, repositoryNamed, resolveHeadRepository } from './pull-head';

/** Gitea's merge styles (`repo_model.MergeStyle`). */
export const MERGE_STYLES = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only', 'manually-merged'] as const;

/** An `[]int64` whose absence (nil) means "leave unchanged" (EditPullRequestOption.Labels). */
function int64SlicePtr(goName: string): GoField<number[] | undefined> {
  const slice = go.int64Slice(goName);
  return { ...slice, zero: undefined, check: () => undefined };
}

/** Gitea's `api.CreatePullRequestOption`. */
export const CreatePullRequestOption = goStruct('CreatePullRequestOption', {
  head: go.string('Head', { required: true }),
  base: go.string('Base', { required: true }),
  title: go.string('Title', { required: true }),
  body: go.string('Body'),
  assignee: go.string('Assignee'),
  assignees: go.stringSlice('Assignees'),
  milestone: go.int64('Milestone'),
  labels: go.int64Slice('Labels'),
  due_date: go.timePtr('Deadline'),
  reviewers: go.stringSlice('Reviewers'),
  team_reviewers: go.stringSlice('TeamReviewers'),
  allow_maintainer_edit: go.boolPtr('AllowMaintainerEdit'),
});
type CreatePullBody = {
  head: string;
  base: string;
  title: string;
  body: string;
  assignee: string;
  assignees: string[];
  milestone: number;
  labels: number[];
  due_date: Date | undefined;
  reviewers: string[];
  team_reviewers: string[];
  allow_maintainer_edit: boolean | undefined;
};

/** Gitea's `api.EditPullRequestOption`: pointers, so that only the fields sent change. */
export const EditPullRequestOption = goStruct('EditPullRequestOption', {
  title: go.string('Title'),
  body: go.stringPtr('Body'),
  base: go.string('Base'),
  assignee: go.string('Assignee'),
  assignees: go.stringSlicePtr('Assignees'),
  milestone: go.int64('Milestone'),
  labels: int64SlicePtr('Labels'),
  state: go.stringPtr('State'),
  due_date: writtenTimePtr('Deadline'),
  unset_due_date: go.boolPtr('RemoveDeadline'),
  allow_maintainer_edit: go.boolPtr('AllowMaintainerEdit'),
  content_version: go.int64Ptr('ContentVersion'),
});
type EditPullBody = {
  title: string;
  body: string | undefined;
  base: string;
  assignee: string;
  assignees: string[] | undefined;
  milestone: number;
  labels: number[] | undefined;
  state: string | undefined;
  due_date: WrittenTime | undefined;
  unset_due_date: boolean | undefined;
  allow_maintainer_edit: boolean | undefined;
  content_version: number | undefined;
};

/**
 * Gitea's `forms.MergePullRequestForm`: `Do` and the title/message/commit fields have no JSON names there, so their
 * Go names (any case) are the keys; the snake_case names the API description uses are taken too.
 */
export const MergePullRequestForm = goStruct('MergePullRequestForm', {
  Do: go.string('Do', { required: true, in: MERGE_STYLES }),
  MergeTitleField: go.string('MergeTitleField'),
  merge_title_field: go.string('MergeTitleField'),
  MergeMessageField: go.string('MergeMessageField'),
  merge_message_field: go.string('MergeMessageField'),
  MergeCommitID: go.string('MergeCommitID'),
  merge_commit_id: go.string('MergeCommitID'),
  head_commit_id: go.string('HeadCommitID'),
  force_merge: go.bool('ForceMerge'),
  merge_when_checks_succeed: go.bool('MergeWhenChecksSucceed'),
  delete_branch_after_merge: go.bool('DeleteBranchAfterMerge'),
});
type MergeBody = {
  Do: string;
  MergeTitleField: string;
  merge_title_field: string;
  MergeMessageField: string;
  merge_message_field: string;
  MergeCommitID: string;
  merge_commit_id: string;
  head_commit_id: string;
  force_merge: boolean;
  merge_when_checks_succeed: boolean;
  delete_branch_after_merge: boolean;
};

/** The older page headers Gitea's files and commits lists set besides Link and X-Total-Count. */
const LEGACY_PAGE_HEADERS = ['X-Page', 'X-PerPage', 'X-PageCount', 'X-HasMore'];

/** Gitea's MakeIDsFromAPIAssigneesToAdd: the deprecated `assignee` joins `assignees` (whose first must not be empty). */
function createAssigneeNames(body: CreatePullBody): string[] {
  const names: string[] = [];
  if (body.assignee !== '' && !body.assignees.includes(body.assignee)) names.push(body.assignee);
  if (body.assignees.length > 0 && body.assignees[0] !== '') names.push(...body.assignees);
  return names;
}

async function createPull(ctx: ApiContext<CreatePullBody>): Promise<ApiReply> {
  const { body } = ctx;
  if (body.head === body.base) throw HttpError.unprocessable('Invalid PullRequest: There are no changes between the head and the base');
  const base = repoOf(ctx);
  const spec = parseHead(body.head);
  if (spec === undefined) throw HttpError.notFound();
  const head = await resolveHeadRepository(ctx.services, ctx.viewer, base.repository, spec);
  // A public-only token reaches public repositories only, the head as much as the base (api/repo-context.ts).
  if (head?.repository !== undefined) assertPublicOnlyMayReach(head.repository, isPublicOnly(ctx.caller));
  // Gitea's order: assignees (422) before reviewers (404, as on `…/requested_reviewers`).
  const assignees = await assigneeIds(ctx.services, ctx.viewer, createAssigneeNames(body), (name) => `Assignee does not exist: [name: ${userNotExist(name)}]`);
  const reviewers = await reviewerIdsByName(ctx.services, ctx.viewer, body.reviewers);
  const scope = repoScopeOf(ctx);
  const { pull } = await teamNamed(() =>
    ctx.services.clients.pulls.createPull({
      scope,
      head,
      headBranch: spec.branch,
      baseBranch: body.base,
      title: body.title,
      body: body.body,
      assigneeIds: assignees,
      labelIds: body.labels,
      milestoneId: body.milestone,
      deadline: body.due_date,
      reviewerIds: reviewers,
      // Names as sent: the issues service finds the organization's teams (ignored on a user's repository).
      teamNames: body.team_reviewers,
    }, gitWriteCall(ctx)),
  );
  let created = pullOf(pull);
  if (body.allow_maintainer_edit === true && !created.allowMaintainerEdit) {
    // The poster may always let maintainers edit; CreatePull leaves it at the default.
    const edited = await ctx.services.clients.pulls.editPull({
      scope,
      index: created.issue?.index ?? 0,
      fields: ['allow_maintainer_edit'],
      title: '',
      body: '',
      state: '',
      assigneeIds: [],
      milestoneId: 0,
      deadline: undefined,
      baseBranch: '',
      allowMaintainerEdit: true,
      contentVersion: 0,
    });
    created = pullOf(edited.pull);
  }
  return answerPull(ctx, 201, created);
}

async function editPull(ctx: ApiContext<EditPullBody>): Promise<ApiReply> {
  const { body } = ctx;
  const scope = repoScopeOf(ctx);
  const index = pullIndexOf(ctx);
  const writer = canWriteUnit(ctx, UNIT_PULLS);
  const fields: string[] = [];
  if (body.title !== '') fields.push('title');
  if (body.body !== undefined) fields.push('body');
  if (body.content_version !== undefined) fields.push('content_version');
  let deadline: Date | undefined;
  if (body.due_date !== undefined || body.unset_due_date !== undefined) {
    if (body.unset_due_date !== true) {
      if (body.due_date === undefined) throw HttpError.badRequest('The due_date cannot be empty');
      deadline = isGoZeroTime(body.due_date.date) ? undefined : endOfWrittenDay(body.due_date);
    }
    fields.push('deadline');
  }
  let assignees: number[] = [];
  if (writer && (body.assignees !== undefined || body.assignee !== '')) {
    // Gitea's UpdateAssignees: the set of `assignees` plus the deprecated `assignee`; an empty set clears them.
    const names = [...(body.assignees ?? []), ...(body.assignee !== '' ? [body.assignee] : [])];
    assignees = await assigneeIds(ctx.services, ctx.viewer, names, (name) => `Assignee does not exist: [name: ${userNotExist(name)}]`);
    fields.push('assignees');
  }
  // Gitea changes the milestone only to another one (0 leaves it).
  if (writer && body.milestone !== 0) fields.push('milestone');
  if (body.state !== undefined) fields.push('state');
  if (body.base !== '') fields.push('base');
  if (body.allow_maintainer_edit !== undefined) fields.push('allow_maintainer_edit');
  const { pull } = await ctx.services.clients.pulls.editPull({
    scope,
    index,
    fields,
    title: body.title,
    body: body.body ?? '',
    state: body.state ?? '',
    assigneeIds: assignees,
    milestoneId: body.milestone,
    deadline,
    baseBranch: body.base,
    allowMaintainerEdit: body.allow_maintainer_edit ?? false,
    contentVersion: body.content_version ?? 0,
  });
  const edited = pullOf(pull);
  if (writer && body.labels !== undefined && edited.issue !== undefined) {
    const { labels } = await ctx.services.clients.labels.replaceIssueLabels({ scope, index, labelIds: body.labels, names: [] });
    edited.issue = { ...edited.issue, labels };
  }
  return answerPull(ctx, 201, edited);
}

/** The repository the `{head}` of `GET …/pulls/{base}/{head}` names (Gitea: `owner:branch` is owner's repository of this name). */
async function headRepoIdOf<B>(ctx: ApiContext<B>, owner: string | undefined, name: string | undefined): Promise<number> {
  const base = repoOf(ctx).repository;
  if (owner === undefined) return base.id;
  const found = await repositoryNamed(ctx.services, ctx.viewer, owner, name ?? base.name);
  if (found?.repository === undefined) throw HttpError.notFound();
  return found.repository.id;
}

/** Where a pull request's comparison starts: the merge base once merged (the base branch contains the head then). */
function comparisonBase(pull: PullRequest): string {
  return pull.hasMerged ? pull.mergeBase : `refs/heads/${pull.baseBranch}`;
}

/** The head repository of a pull request as the viewer may read it; the base repository when it is the head or unreadable. */
async function headRepositoryOf<B>(ctx: ApiContext<B>, pull: PullRequest): Promise<Repository> {
  const base = repoOf(ctx).repository;
  if (pull.headRepoId === base.id || pull.headRepoId <= 0) return base;
  const { repositories } = await ctx.services.clients.repos.batchGetRepositories({ viewer: ctx.viewer, ids: [pull.headRepoId] });
  return repositories[0]?.repository ?? base;
}

/** Gitea's page headers of the pull-request files and commits lists, older ones included. */
function pageHeaders<B>(ctx: ApiContext<B>, total: number, page: number, limit: number): Record<string, string> {
  const pageCount = Math.ceil(total / limit);
  ctx.setLinkHeader(total, limit);
  ctx.setTotalCount(total);
  return {
    'X-Page': String(page),
    'X-PerPage': String(limit),
    'X-PageCount': String(pageCount),
    'X-HasMore': String(page < pageCount),
    [EXPOSE_HEADERS_HEADER]: LEGACY_PAGE_HEADERS.join(', '),
  };
}

/** Gitea's ToChangedFile status from git-storage's. */
function changedFileStatus(status: string, additions: number, deletions: number): string {
  switch (status) {
    case 'removed':
      return 'deleted';
    case 'added':
    case 'copied':
    case 'renamed':
      return status;
    default:
      return additions === 0 && deletions === 0 ? 'unchanged' : 'changed';
  }
}

function pathEscapeSegments(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

async function listPulls<B>(ctx: ApiContext<B>): Promise<ApiReply> {
  const labelIds = (ctx.query.get('labels') ?? []).map((text) => {
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw HttpError.unprocessable(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
    return Number(text);
  });
  let posterId = 0;
  const posterName = goFormString(ctx.query, 'poster');
  if (posterName !== '') {
    const account = await accountIdByName(ctx.services, ctx.viewer, posterName);
    if (account === undefined) throw HttpError.badRequest(userNotExist(posterName));
    posterId = account.id;
  }
  const milestoneText = goFormString(ctx.query, 'milestone');
  const milestoneId = /^\d+$/.test(milestoneText) && Number.isSafeInteger(Number(milestoneText)) ? Number(milestoneText) : 0;
  const { page, limit } = ctx.listOptions();
  const { pulls, total } = await ctx.services.clients.pulls.listPulls({
    scope: repoScopeOf(ctx),
    state: goFormString(ctx.query, 'state').trim(),
    sort: goFormString(ctx.query, 'sort').trim(),
    milestoneId,
    labelIds,
    posterId,
    page: pageRequest(page, limit),
    baseBranch: goFormString(ctx.query, 'base_branch').trim(),
  });
  ctx.setLinkHeader(total, limit);
  ctx.setTotalCount(total);
  return json(200, await toApiPullRequests(ctx.services, ctx.viewer, pulls, repoOf(ctx), { single: false }));
}

/** Calls that merge or rebase (opening runs a test merge) wait `[rpc] GIT_WRITE_DEADLINE_MS`, not a lookup's deadline. */
function gitWriteCall<B>(ctx: ApiContext<B>): { deadlineMs: number } {
  return { deadlineMs: ctx.services.config.rpc.gitWriteDeadlineMs };
}

async function mergePull(ctx: ApiContext<MergeBody>): Promise<ApiReply> {
  const { body } = ctx;
  const doer = doerOf(ctx);
  const signature = doerSignature(doer, ctx.services.config);
  const { scheduled } = await ctx.services.clients.pulls.mergePull({
    scope: repoScopeOf(ctx),
    index: pullIndexOf(ctx),
    style: body.Do,
    title: (body.merge_title_field || body.MergeTitleField).trim(),
    message: (body.merge_message_field || body.MergeMessageField).trim(),
    mergeCommitId: body.merge_commit_id || body.MergeCommitID,
    headCommitId: body.head_commit_id,
    forceMerge: body.force_merge,
    deleteBranchAfterMerge: body.delete_branch_after_merge,
    mergerName: signature.name,
    mergerEmail: signature.email,
    mergeWhenChecksSucceed: body.merge_when_checks_succeed,
  }, gitWriteCall(ctx));
  // Gitea: 201 without a body when the merge was scheduled (even if its first try merged already), else 200.
  return { status: scheduled ? 201 : 200 };
}

/** Gitea's UpdatePullRequest: `style=rebase` rebases, anything else merges; the doer commits. */
async function updatePull<B>(ctx: ApiContext<B>): Promise<ApiReply> {
  const doer = doerOf(ctx);
  const signature = doerSignature(doer, ctx.services.config);
  await ctx.services.clients.pulls.updatePull({
    scope: repoScopeOf(ctx),
    index: pullIndexOf(ctx),
    style: goFormString(ctx.query, 'style'),
    updaterName: signature.name,
    updaterEmail: signature.email,
    updaterLogin: doer.login,
  }, gitWriteCall(ctx));
  return { status: 200 };
}

export function registerPullRoutes(api: ApiRegistry): void {
  api.route({
    ...PULL_READER,
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls',
    operationId: 'repoListPullRequests',
    handler: pullHandler(listPulls),
  });

  api.route<CreatePullBody>({
    ...PULL_CHANGER,
    method: 'post',
    path: '/repos/{owner}/{repo}/pulls',
    operationId: 'repoCreatePullRequest',
    body: CreatePullRequestOption,
    handler: pullHandler(createPull),
  });

  // Before `/pulls/{index}`, which would take `3.diff` as an index.
  api.route({
    ...PULL_READER,
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls/{index}.{diffType}',
    operationId: 'repoDownloadPullDiffOrPatch',
    handler: pullHandler(async (ctx) => {
      const format = ctx.params.diffType;
      if (format !== 'diff' && format !== 'patch') throw HttpError.notFound();
      const { pull } = await ctx.services.clients.pulls.getPull({ scope: repoScopeOf(ctx), index: pullIndexOf(ctx) });
      const found = pullOf(pull);
      const repository = gitRepositoryOf(repoOf(ctx).repository);
      // Gitea's DownloadDiffOrPatch: merge base...refs/pull/<n>/head, binary changes only when asked for a diff.
      const binary = format === 'diff' && goFormBool(ctx.query, 'binary');
      // A pull request whose check has not recorded a merge base yet: git works it out from the base branch.
      const base = found.mergeBase || `refs/heads/${found.baseBranch}`;
      const request = { repository, base, head: pullHeadRef(found.issue?.index ?? 0), format, binary };
      const stream = await answering(startDiff(ctx, request), { [Code.NOT_FOUND]: () => HttpError.notFound() });
      return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, stream };
    }),
  });

  api.route({
    ...PULL_READER,
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls/{index}',
    operationId: 'repoGetPullRequest',
    handler: pullHandler(async (ctx) => {
      const { pull } = await ctx.services.clients.pulls.getPull({ scope: repoScopeOf(ctx), index: pullIndexOf(ctx) });
      return answerPull(ctx, 200, pull);
    }),
  });

  api.route<EditPullBody>({
    ...PULL_CHANGER,
    // A merged pull request's state cannot change (412); a moved base that another open pull request has: 409.
    errors: { ...TRACKER_ERRORS, codes: { [Code.FAILED_PRECONDITION]: 412 } },
    method: 'patch',
    path: '/repos/{owner}/{repo}/pulls/{index}',
    operationId: 'repoEditPullRequest',
    body: EditPullRequestOption,
    handler: pullHandler(editPull),
  });

  api.route({
    ...PULL_READER,
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls/{index}/files',
    operationId: 'repoGetPullRequestFiles',
    handler: pullHandler(async (ctx) => {
      const { pull } = await ctx.services.clients.pulls.getPull({ scope: repoScopeOf(ctx), index: pullIndexOf(ctx) });
      const found = pullOf(pull);
      const { page, limit } = ctx.listOptions();
      const head = pullHeadRef(found.issue?.index ?? 0);
      const [changed, headRepo] = await Promise.all([
        ctx.services.clients.gitMerge.listChangedFiles({
          repository: gitRepositoryOf(repoOf(ctx).repository),
          base: comparisonBase(found),
          head,
          page: pageRequest(page, limit),
        }),
        headRepositoryOf(ctx, found),
      ]);
      const rootUrl = ctx.services.config.server.rootUrl;
      const html = repoHtmlUrl(rootUrl, headRepo);
      const apiUrl = repoApiUrl(rootUrl, headRepo);
      const commit = found.headCommitId;
      const files = changed.files.map((file) => {
        const name = pathEscapeSegments(file.filename);
        return {
          filename: file.filename,
          previous_filename: file.status === 'renamed' ? file.previousFilename : '',
          status: changedFileStatus(file.status, file.additions, file.deletions),
          additions: file.additions,
          deletions: file.deletions,
          changes: file.additions + file.deletions,
          html_url: `${html}/src/commit/${commit}/${name}`,
          contents_url: `${apiUrl}/contents/${name}?ref=${commit}`,
          raw_url: `${html}/raw/commit/${commit}/${name}`,
        };
      });
      return { status: 200, body: files, headers: pageHeaders(ctx, changed.total, page, limit) };
    }),
  });

  api.route({
    ...PULL_READER,
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls/{index}/commits',
    operationId: 'repoGetPullRequestCommits',
    handler: pullHandler(async (ctx) => {
      const { pull } = await ctx.services.clients.pulls.getPull({ scope: repoScopeOf(ctx), index: pullIndexOf(ctx) });
      const found = pullOf(pull);
      const { page, limit } = ctx.listOptions();
      const files = flagOnByDefault(ctx.query, 'files');
      const verification = flagOnByDefault(ctx.query, 'verification');
      const { repository } = repoOf(ctx);
      const { commits, total } = await ctx.services.clients.gitMerge.listCommitsBetween({
        repository: gitRepositoryOf(repository),
        base: comparisonBase(found),
        head: pullHeadRef(found.issue?.index ?? 0),
        page: pageRequest(page, limit),
        // Gitea always includes the stats, which come with the files.
        withFiles: true,
        withVerification: verification,
      });
      const links = repoLinks(ctx.services.config.server.rootUrl, repository);
      const body = await toApiCommits(ctx.services, ctx.viewer, commits, links, { stat: true, verification, files });
      return { status: 200, body, headers: pageHeaders(ctx, total, page, limit) };
    }),
  });

  api.route({
    ...PULL_READER,
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls/{index}/merge',
    operationId: 'repoPullRequestIsMerged',
    handler: pullHandler(async (ctx) => {
      const { pull } = await ctx.services.clients.pulls.getPull({ scope: repoScopeOf(ctx), index: pullIndexOf(ctx) });
      if (pullOf(pull).hasMerged) return noContent();
      throw HttpError.notFound();
    }),
  });

  api.route<MergeBody>({
    ...PULL_CHANGER,
    // Gitea answers refused merges 405 with its reason, conflicts and a moved head 409.
    errors: { ...TRACKER_ERRORS, codes: { [Code.FAILED_PRECONDITION]: 405, [Code.ABORTED]: 409 } },
    method: 'post',
    path: '/repos/{owner}/{repo}/pulls/{index}/merge',
    operationId: 'repoMergePullRequest',
    body: MergePullRequestForm,
    handler: pullHandler(mergePull),
  });

  api.route({
    ...PULL_CHANGER,
    method: 'delete',
    path: '/repos/{owner}/{repo}/pulls/{index}/merge',
    operationId: 'repoCancelScheduledAutoMerge',
    // Nothing scheduled: bare 404; neither the scheduler nor a repository admin: 403 with Gitea's message.
    handler: pullHandler(async (ctx) => {
      await ctx.services.clients.pulls.cancelAutoMerge({ scope: repoScopeOf(ctx), index: pullIndexOf(ctx) });
      return noContent();
    }),
  });

  api.route({
    ...PULL_CHANGER,
    // Merged, closed or already up to date: 422; a conflict or a head that moved: 409; no push right: a bare 403.
    errors: { ...TRACKER_ERRORS, codes: { [Code.FAILED_PRECONDITION]: 422, [Code.ABORTED]: 409 } },
    method: 'post',
    path: '/repos/{owner}/{repo}/pulls/{index}/update',
    operationId: 'repoUpdatePullRequest',
    handler: pullHandler(updatePull),
  });
}

/**
 * `GET …/pulls/{base}/{head}` (Gitea's GetPullRequestByBaseHead): `head` is a branch of this repository, or
 * `owner:branch` / `owner/repo:branch`. Registered after every other `/pulls/{index}/…` route (reviews included),
 * since `{head}` spans the rest of the path.
 */
export function registerPullByBranchesRoute(api: ApiRegistry): void {
  api.route({
    ...PULL_READER,
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls/{base}/{head}',
    pathWildcards: ['head'],
    operationId: 'repoGetPullRequestByBaseHead',
    handler: pullHandler(async (ctx) => {
      const spec = parseHead(ctx.params.head ?? '');
      if (spec === undefined) throw HttpError.notFound();
      const headRepoId = await headRepoIdOf(ctx, spec.owner, spec.name);
      const { pull } = await ctx.services.clients.pulls.getPullByBranches({
        scope: repoScopeOf(ctx),
        baseBranch: ctx.params.base ?? '',
        headBranch: spec.branch,
        headRepoId,
      });
      return answerPull(ctx, 200, pull);
    }),
  });
}

/** Starts the diff stream, so that a failure to start (an unknown revision) is answered before any byte. */
async function startDiff<B>(
  ctx: ApiContext<B>,
  request: { repository: ReturnType<typeof gitRepositoryOf>; base: string; head: string; format: string; binary: boolean },
): Promise<AsyncIterable<Uint8Array>> {
  const started = await startStream(ctx.services.clients.gitMerge.getDiff(request));
  async function* bytes(): AsyncIterable<Uint8Array> {
    try {
      if (started.first !== undefined) yield started.first.data;
      for await (const chunk of started.rest) yield chunk.data;
    } finally {
      await started.cancel();
    }
  }
  return bytes();
}
