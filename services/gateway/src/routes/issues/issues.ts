/**
 * Issues of a repository (routers/api/v1/repo/issue.go, issue_lock.go): list, create, get, edit, delete, lock and
 * unlock. The issues service decides what the caller may do with an issue; this route file binds bodies and query
 * parameters as Gitea does, resolves user names to ids, and answers Gitea's statuses:
 * - create 201 (title required: `[Title]: Required`; milestone, labels, assignees and deadline only count for issue
 *   writers, as Gitea ignores them otherwise; an unknown assignee is 422 `Assignee does not exist: …`);
 * - edit 201 with the issue and its milestone (a caller who neither posted nor writes: a bare 403; a stale
 *   content_version: 409; an unknown state: 412 `unknown state: …`);
 * - delete 204 (repository admins), lock and unlock 204 (issue writers);
 * - the list: Gitea's filters, Link and X-Total-Count; an unknown user in a filter is 404.
 * Issues or pull requests must be readable (Gitea's mustEnableIssuesOrPulls); the service answers 404 for an issue
 * whose own unit is not. Archived repositories answer 423 to every change.
 */
import { HttpError, go, goFormString, goStruct } from '@cairn/http';
import type { Issue, IssueFilter, RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type ApiIssue, UNIT_ISSUES, UNIT_PULLS, toApiIssue, toApiIssues } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type ApiReply, json, noContent, repoOf } from '../../api/types';
import { queryBeforeSince } from '../../issues/before-since';
import { canWriteUnit, repoScopeOf } from '../../issues/scope';
import { TRACKER_ERRORS, trackerAnswer } from '../../issues/tracker-answers';
import {
  type WrittenTime,
  assigneeIds,
  commaList,
  endOfWrittenDay,
  isGoZeroTime,
  pageRequest,
  userIdForFilter,
  userNotExist,
  writtenTimePtr,
} from './issue-params';

/** Gitea's `api.CreateIssueOption` (fields in its struct order). */
export const CreateIssueOption = goStruct('CreateIssueOption', {
  title: go.string('Title', { required: true }),
  body: go.string('Body'),
  ref: go.string('Ref'),
  assignee: go.string('Assignee'),
  assignees: go.stringSlice('Assignees'),
  due_date: go.timePtr('Deadline'),
  milestone: go.int64('Milestone'),
  labels: go.int64Slice('Labels'),
  closed: go.bool('Closed'),
});
type CreateIssueBody = {
  title: string;
  body: string;
  ref: string;
  assignee: string;
  assignees: string[];
  due_date: Date | undefined;
  milestone: number;
  labels: number[];
  closed: boolean;
};

/** Gitea's `api.EditIssueOption`: pointers, so that only the fields sent change. */
export const EditIssueOption = goStruct('EditIssueOption', {
  title: go.string('Title'),
  body: go.stringPtr('Body'),
  ref: go.stringPtr('Ref'),
  assignee: go.stringPtr('Assignee'),
  assignees: go.stringSlicePtr('Assignees'),
  milestone: go.int64Ptr('Milestone'),
  state: go.stringPtr('State'),
  due_date: writtenTimePtr('Deadline'),
  unset_due_date: go.boolPtr('RemoveDeadline'),
  content_version: go.int64Ptr('ContentVersion'),
});
type EditIssueBody = {
  title: string;
  body: string | undefined;
  ref: string | undefined;
  assignee: string | undefined;
  assignees: string[] | undefined;
  milestone: number | undefined;
  state: string | undefined;
  due_date: WrittenTime | undefined;
  unset_due_date: boolean | undefined;
  content_version: number | undefined;
};

/** Gitea's `api.LockIssueOption`. */
export const LockIssueOption = goStruct('LockIssueOption', { lock_reason: go.string('Reason') });
type LockIssueBody = { lock_reason: string };

/** How the issue routes answer the service's refusals, over the tracker's (404, bare 403, 423). */
const ISSUE_ERRORS = {
  reasons: {
    ...TRACKER_ERRORS.reasons,
    unknown_state: (error: { message: string }) => new HttpError(412, error.message),
  },
} as const;

/** Gitea's ctx.Repo.CanWrite(unit): the unit's level, or the repository's for its admins. */
function issueOf(issue: Issue | undefined): Issue {
  if (issue === undefined) throw new Error('the issues service answered without an issue');
  return issue;
}

async function answerIssue<B>(ctx: ApiContext<B>, status: number, issue: Issue | undefined): Promise<ApiReply> {
  const converted: ApiIssue = await toApiIssue(ctx.services, ctx.viewer, issueOf(issue), repoOf(ctx).repository);
  return json(status, converted);
}

/** The `{index}` of the path; anything but a positive integer names no issue (the service answers 404). */
function indexOf<B>(ctx: ApiContext<B>): number {
  return pathInt64(ctx.params.index);
}

/** Gitea's MakeIDsFromAPIAssigneesToAdd: the deprecated `assignee` joins `assignees` (whose first must not be empty). */
function createAssigneeNames(body: CreateIssueBody): string[] {
  const names: string[] = [];
  if (body.assignee !== '' && !body.assignees.includes(body.assignee)) names.push(body.assignee);
  if (body.assignees.length > 0 && body.assignees[0] !== '') names.push(...body.assignees);
  return names;
}

async function createIssue(ctx: ApiContext<CreateIssueBody>): Promise<ApiReply> {
  const { body } = ctx;
  const writer = canWriteUnit(ctx, UNIT_ISSUES);
  // Gitea looks assignees up only for writers (others' are ignored), and answers 422 for one that does not exist.
  const assignees = writer
    ? await assigneeIds(ctx.services, ctx.viewer, createAssigneeNames(body), (name) => `Assignee does not exist: [name: ${userNotExist(name)}]`)
    : [];
  const { issue } = await ctx.services.clients.issues.createIssue({
    scope: repoScopeOf(ctx),
    title: body.title,
    body: body.body,
    ref: body.ref,
    assigneeIds: assignees,
    milestoneId: body.milestone,
    labelIds: body.labels,
    closed: body.closed,
    deadline: body.due_date,
  });
  return answerIssue(ctx, 201, issue);
}

/** What an edit changes, as EditIssueRequest names it, and the values. */
async function editRequest(ctx: ApiContext<EditIssueBody>, scope: RepoScope, index: number) {
  const { body } = ctx;
  const fields: string[] = [];
  if (body.title !== '') fields.push('title');
  if (body.body !== undefined) fields.push('body');
  if (body.content_version !== undefined) fields.push('content_version');
  if (body.ref !== undefined) fields.push('ref');
  if (body.state !== undefined) fields.push('state');
  if (body.milestone !== undefined) fields.push('milestone');
  // Writers of issues or pull requests: the service applies these to the issue only when its own unit is writable.
  const writer = canWriteUnit(ctx, UNIT_ISSUES) || canWriteUnit(ctx, UNIT_PULLS);
  let deadline: Date | undefined;
  if (writer && (body.due_date !== undefined || body.unset_due_date !== undefined)) {
    if (body.unset_due_date !== true) {
      if (body.due_date === undefined) throw HttpError.badRequest('The due_date cannot be empty');
      deadline = isGoZeroTime(body.due_date.date) ? undefined : endOfWrittenDay(body.due_date);
    }
    fields.push('deadline');
  }
  let assignees: number[] = [];
  if (writer && (body.assignees !== undefined || body.assignee !== undefined)) {
    // Gitea's UpdateAssignees: the set of `assignees` plus the deprecated `assignee`; an empty set clears them.
    const names = [...(body.assignees ?? []), ...(body.assignee !== undefined && body.assignee !== '' ? [body.assignee] : [])];
    assignees = await assigneeIds(ctx.services, ctx.viewer, names, userNotExist);
    fields.push('assignees');
  }
  return {
    scope,
    index,
    fields,
    title: body.title,
    body: body.body ?? '',
    ref: body.ref ?? '',
    state: body.state ?? '',
    assigneeIds: assignees,
    milestoneId: body.milestone ?? 0,
    deadline,
    contentVersion: body.content_version ?? 0,
  };
}

/** The list's filter from Gitea's query parameters; users named in filters resolved (404 when unknown). */
async function listFilter<B>(ctx: ApiContext<B>): Promise<IssueFilter> {
  const { before, since } = queryBeforeSince(ctx.query);
  const [createdById, assignedId, mentionedId] = [
    await userIdForFilter(ctx.services, ctx.viewer, ctx.query, 'created_by'),
    await userIdForFilter(ctx.services, ctx.viewer, ctx.query, 'assigned_by'),
    await userIdForFilter(ctx.services, ctx.viewer, ctx.query, 'mentioned_by'),
  ];
  return {
    state: goFormString(ctx.query, 'state'),
    type: goFormString(ctx.query, 'type'),
    labels: commaList(ctx.query, 'labels'),
    milestones: commaList(ctx.query, 'milestones'),
    q: goFormString(ctx.query, 'q'),
    since,
    before,
    createdById,
    assignedId,
    mentionedId,
    reviewRequestedId: 0,
    reviewedId: 0,
  };
}

export function registerIssueRoutes(api: ApiRegistry): void {
  // Gitea's `/issues` group asks for issues or pull requests (mustEnableIssuesOrPulls); the service checks the unit
  // of each issue itself, so the route asks only for the repository.
  const reader = { scope: 'issue', auth: 'optional', repo: { mode: 'read' }, errors: ISSUE_ERRORS } as const;
  const changer = { scope: 'issue', auth: 'required', repo: { mode: 'read', archived: 'refuse' }, errors: ISSUE_ERRORS } as const;

  api.route({
    ...reader,
    // The list uses the repository's ids, names and units only: an anonymous caller's may be remembered.
    repo: { ...reader.repo, reuse: 'anonymous' },
    method: 'get',
    path: '/repos/{owner}/{repo}/issues',
    operationId: 'issueListIssues',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const filter = await listFilter(ctx);
        const { page, limit } = ctx.listOptions();
        const { issues, total } = await ctx.services.clients.issues.listIssues({ scope: repoScopeOf(ctx), filter, page: pageRequest(page, limit) });
        const { repository } = repoOf(ctx);
        ctx.setLinkHeader(total, limit);
        ctx.setTotalCount(total);
        return json(200, await toApiIssues(ctx.services, ctx.viewer, issues, new Map([[repository.id, repository]])));
      }),
  });

  api.route<CreateIssueBody>({
    ...changer,
    repo: { unit: UNIT_ISSUES, mode: 'read', archived: 'refuse' },
    method: 'post',
    path: '/repos/{owner}/{repo}/issues',
    operationId: 'issueCreateIssue',
    body: CreateIssueOption,
    handler: (ctx) => trackerAnswer(() => createIssue(ctx)),
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/issues/{index}',
    operationId: 'issueGetIssue',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { issue } = await ctx.services.clients.issues.getIssue({ scope: repoScopeOf(ctx), index: indexOf(ctx) });
        return answerIssue(ctx, 200, issue);
      }),
  });

  api.route<EditIssueBody>({
    ...changer,
    method: 'patch',
    path: '/repos/{owner}/{repo}/issues/{index}',
    operationId: 'issueEditIssue',
    body: EditIssueOption,
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { issue } = await ctx.services.clients.issues.editIssue(await editRequest(ctx, repoScopeOf(ctx), indexOf(ctx)));
        return answerIssue(ctx, 201, issue);
      }),
  });

  api.route({
    ...changer,
    // Gitea's reqAdmin: repository admins and site admins (403 otherwise).
    repo: { mode: 'admin', archived: 'refuse' },
    method: 'delete',
    path: '/repos/{owner}/{repo}/issues/{index}',
    operationId: 'issueDelete',
    handler: (ctx) =>
      trackerAnswer(async () => {
        await ctx.services.clients.issues.deleteIssue({ scope: repoScopeOf(ctx), index: indexOf(ctx) });
        return noContent();
      }),
  });

  api.route<LockIssueBody>({
    ...changer,
    method: 'put',
    path: '/repos/{owner}/{repo}/issues/{index}/lock',
    operationId: 'issueLockIssue',
    body: LockIssueOption,
    handler: (ctx) =>
      trackerAnswer(async () => {
        await ctx.services.clients.issues.setIssueLocked({ scope: repoScopeOf(ctx), index: indexOf(ctx), locked: true, reason: ctx.body.lock_reason });
        return noContent();
      }),
  });

  api.route({
    ...changer,
    method: 'delete',
    path: '/repos/{owner}/{repo}/issues/{index}/lock',
    operationId: 'issueUnlockIssue',
    handler: (ctx) =>
      trackerAnswer(async () => {
        await ctx.services.clients.issues.setIssueLocked({ scope: repoScopeOf(ctx), index: indexOf(ctx), locked: false, reason: '' });
        return noContent();
      }),
  });
}
