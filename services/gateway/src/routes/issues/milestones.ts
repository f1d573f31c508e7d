/**
 * Milestones (routers/api/v1/repo/milestone.go). `{id}` is a number (Go's base-0 syntax) or a title; the issues
 * service resolves it and decides who may do what (readers of issues or pull requests read, writers of either
 * change). The list takes `state` (open — also for an absent or unknown value —, closed, all) and `name` (title
 * contains, case-insensitive) and carries only X-Total-Count, as Gitea's. Wire details kept from Gitea: an edit
 * ignores an empty `title` and a null or zero `due_on` (a due date cannot be removed through the API); any `state`
 * but "closed" is open. Unlike Gitea, an empty title on creation is refused (422) rather than stored.
 */
import { GO_ZERO_TIME, go, goFormString, goStruct } from '@cairn/http';
import type { Milestone } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type ApiMilestone, toApiMilestone } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, json, noContent } from '../../api/types';
import { repoScopeOf } from '../../issues/scope';
import { TRACKER_ERRORS, trackerAnswer } from '../../issues/tracker-answers';

/** Gitea's `api.CreateMilestoneOption` (fields in its struct order; no binding rules). */
export const CreateMilestoneOption = goStruct('CreateMilestoneOption', {
  title: go.string('Title'),
  description: go.string('Description'),
  due_on: go.timePtr('Deadline'),
  state: go.string('State'),
});
type CreateMilestoneBody = { title: string; description: string; due_on: Date | undefined; state: string };

/** Gitea's `api.EditMilestoneOption`: every field a pointer. */
export const EditMilestoneOption = goStruct('EditMilestoneOption', {
  title: go.stringPtr('Title'),
  description: go.stringPtr('Description'),
  state: go.stringPtr('State'),
  due_on: go.timePtr('Deadline'),
});
type EditMilestoneBody = { title: string | undefined; description: string | undefined; state: string | undefined; due_on: Date | undefined };

/** Go's zero time.Time, which EditMilestone treats as "no due date given". */
const ZERO_TIME = Date.parse(GO_ZERO_TIME);

function milestoneOf(milestone: Milestone | undefined): ApiMilestone {
  if (milestone === undefined) throw new Error('the milestone service answered without a milestone');
  return toApiMilestone(milestone);
}

function idOrTitle<B>(ctx: ApiContext<B>): string {
  return ctx.params.id ?? '';
}

/** The fields an EditMilestoneOption changes, as Gitea's EditMilestone reads it. */
function editRequest(body: EditMilestoneBody): { fields: string[]; title: string; description: string; state: string; dueOn: Date | undefined } {
  const fields: string[] = [];
  if (body.title !== undefined && body.title !== '') fields.push('title');
  if (body.description !== undefined) fields.push('description');
  if (body.state !== undefined) fields.push('state');
  const dueOn = body.due_on !== undefined && body.due_on.getTime() !== ZERO_TIME ? body.due_on : undefined;
  if (dueOn !== undefined) fields.push('due_on');
  return { fields, title: body.title ?? '', description: body.description ?? '', state: body.state ?? '', dueOn };
}

export function registerMilestoneRoutes(api: ApiRegistry): void {
  const path = '/repos/{owner}/{repo}/milestones';
  const reader = { scope: 'issue', auth: 'optional', repo: { mode: 'read' }, errors: TRACKER_ERRORS } as const;
  const writer = { scope: 'issue', auth: 'required', repo: { mode: 'read' }, errors: TRACKER_ERRORS } as const;

  api.route({
    ...reader,
    method: 'get',
    path,
    operationId: 'issueGetMilestonesList',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { page, limit } = ctx.listOptions();
        const { milestones, total } = await ctx.services.clients.milestones.listMilestones({
          scope: repoScopeOf(ctx),
          state: goFormString(ctx.query, 'state'),
          name: goFormString(ctx.query, 'name'),
          page: { page, limit },
        });
        ctx.setTotalCount(total);
        return json(200, milestones.map(toApiMilestone));
      }),
  });

  api.route({
    ...reader,
    method: 'get',
    path: `${path}/{id}`,
    operationId: 'issueGetMilestone',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { milestone } = await ctx.services.clients.milestones.getMilestone({ scope: repoScopeOf(ctx), idOrTitle: idOrTitle(ctx) });
        return json(200, milestoneOf(milestone));
      }),
  });

  api.route<CreateMilestoneBody>({
    ...writer,
    method: 'post',
    path,
    operationId: 'issueCreateMilestone',
    body: CreateMilestoneOption,
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { title, description, state, due_on: dueOn } = ctx.body;
        const { milestone } = await ctx.services.clients.milestones.createMilestone({ scope: repoScopeOf(ctx), title, description, state, dueOn });
        return json(201, milestoneOf(milestone));
      }),
  });

  api.route<EditMilestoneBody>({
    ...writer,
    method: 'patch',
    path: `${path}/{id}`,
    operationId: 'issueEditMilestone',
    body: EditMilestoneOption,
    handler: (ctx) =>
      trackerAnswer(async () => {
        const request = { scope: repoScopeOf(ctx), idOrTitle: idOrTitle(ctx), ...editRequest(ctx.body) };
        const { milestone } = await ctx.services.clients.milestones.editMilestone(request);
        return json(200, milestoneOf(milestone));
      }),
  });

  api.route({
    ...writer,
    method: 'delete',
    path: `${path}/{id}`,
    operationId: 'issueDeleteMilestone',
    handler: (ctx) =>
      trackerAnswer(async () => {
        await ctx.services.clients.milestones.deleteMilestone({ scope: repoScopeOf(ctx), idOrTitle: idOrTitle(ctx) });
        return noContent();
      }),
  });
}
