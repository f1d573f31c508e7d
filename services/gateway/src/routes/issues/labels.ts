/**
 * Repository labels, organization labels and the labels on an issue (routers/api/v1/repo/label.go, org/label.go,
 * repo/issue_label.go). The issues service decides who may do what in a repository (readers of issues or pull
 * requests read labels, writers of either change them); for an organization's labels this gateway tells it
 * whether the caller owns the organization (Gitea's reqOrgOwnership: org owners and site admins). Lists carry only
 * X-Total-Count, as Gitea's. Wire details kept from Gitea:
 * - `{id}` of a label read may be its name; editing and deleting take numbers only (anything else names nothing);
 * - a PATCH without `is_archived` unarchives the label (EditLabel's `SetArchived(form.IsArchived != nil && …)`);
 * - an issue's labels are named by ids or by names, not both in one request (400), any other element is 400.
 */
import { HttpError, go, goStruct, type GoField } from '@cairn/http';
import type { Label, LabelOwner } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type ApiLabel, toApiLabel, toApiRepoLabel } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type ApiReply, json, noContent, repoOf } from '../../api/types';
import { repoScopeOf } from '../../issues/scope';
import { TRACKER_ERRORS, trackerAnswer } from '../../issues/tracker-answers';
import { organizationOf } from '../orgs/repos';

/** Gitea's `api.CreateLabelOption` (fields in its struct order). */
export const CreateLabelOption = goStruct('CreateLabelOption', {
  name: go.string('Name', { required: true }),
  exclusive: go.bool('Exclusive'),
  color: go.string('Color', { required: true }),
  description: go.string('Description'),
  is_archived: go.bool('IsArchived'),
});
type CreateLabelBody = { name: string; exclusive: boolean; color: string; description: string; is_archived: boolean };

/** Gitea's `api.EditLabelOption`: every field a pointer. */
export const EditLabelOption = goStruct('EditLabelOption', {
  name: go.stringPtr('Name'),
  exclusive: go.boolPtr('Exclusive'),
  color: go.stringPtr('Color'),
  description: go.stringPtr('Description'),
  is_archived: go.boolPtr('IsArchived'),
});
type EditLabelBody = {
  name: string | undefined;
  exclusive: boolean | undefined;
  color: string | undefined;
  description: string | undefined;
  is_archived: boolean | undefined;
};

/** Go's `[]any`: any JSON array (elements are judged by the handler, as Gitea's reflect switch does). */
const anySlice: GoField<unknown[]> = {
  goName: 'Labels',
  goType: '[]interface {}',
  zero: [],
  decode: (json) =>
    Array.isArray(json) ? { ok: true, value: json } : { ok: false, found: typeof json === 'object' ? 'object' : typeof json === 'boolean' ? 'bool' : typeof json },
  check: () => undefined,
};

/** Gitea's `api.IssueLabelsOption`. */
export const IssueLabelsOption = goStruct('IssueLabelsOption', { labels: anySlice });
type IssueLabelsBody = { labels: unknown[] };

/** The labels of an IssueLabelsOption: ids (a JSON number, truncated as Go's int64(float64) does) or names. */
function requestedLabels(body: IssueLabelsBody): { labelIds: number[]; names: string[] } {
  const labelIds: number[] = [];
  const names: string[] = [];
  for (const item of body.labels) {
    if (typeof item === 'number') {
      const id = Math.trunc(item);
      // A number beyond int64's exact range names no label; 0 is what the service refuses as one.
      labelIds.push(Number.isSafeInteger(id) ? id : 0);
    } else if (typeof item === 'string') names.push(item);
    else throw HttpError.badRequest('a label must be an integer or a string');
  }
  if (labelIds.length > 0 && names.length > 0) throw HttpError.badRequest('labels should be an array of strings or integers');
  return { labelIds, names };
}

function repoLabelOwner<B>(ctx: ApiContext<B>): LabelOwner {
  return { scope: repoScopeOf(ctx), orgId: 0, orgWriter: false };
}

/** The `{org}` organization's label owner; `orgWriter` asks accounts whether the caller owns it (site admins do). */
async function orgLabelOwner<B>(ctx: ApiContext<B>, forWrite: boolean): Promise<{ owner: LabelOwner; orgName: string }> {
  const org = organizationOf(ctx);
  let orgWriter = false;
  if (forWrite && ctx.doer !== undefined) {
    orgWriter =
      ctx.doer.isAdmin ||
      (await ctx.services.clients.orgs.getOrgPermissions({ viewer: ctx.viewer, username: ctx.doer.login, org: org.name })).isOwner;
  }
  return { owner: { scope: ctx.viewer === undefined ? undefined : { viewer: ctx.viewer }, orgId: org.id, orgWriter }, orgName: org.name };
}

function repoLabelOf<B>(ctx: ApiContext<B>, label: Label | undefined): ApiLabel {
  if (label === undefined) throw new Error('the label service answered without a label');
  return toApiRepoLabel(label, ctx.services.config.server.rootUrl, repoOf(ctx).repository);
}

function orgLabelOf<B>(ctx: ApiContext<B>, orgName: string, label: Label | undefined): ApiLabel {
  if (label === undefined) throw new Error('the label service answered without a label');
  return toApiLabel(label, { rootUrl: ctx.services.config.server.rootUrl, orgName });
}

/** GetLabel's `{id}`: a number is an id; any other text is a name (Gitea's strconv.ParseInt fallback). */
function labelRef<B>(ctx: ApiContext<B>): { id: number; name: string } {
  const text = ctx.params.id ?? '';
  if (/^[+-]?\d+$/.test(text)) return { id: pathInt64(text.replace(/^\+/, '')), name: '' };
  return { id: 0, name: text };
}

function editRequest(body: EditLabelBody): { fields: string[]; name: string; color: string; description: string; exclusive: boolean; isArchived: boolean } {
  const fields: string[] = [];
  if (body.name !== undefined) fields.push('name');
  if (body.exclusive !== undefined) fields.push('exclusive');
  if (body.color !== undefined) fields.push('color');
  if (body.description !== undefined) fields.push('description');
  // Gitea sets the archived state on every edit: no `is_archived` means not archived.
  fields.push('is_archived');
  return {
    fields,
    name: body.name ?? '',
    color: body.color ?? '',
    description: body.description ?? '',
    exclusive: body.exclusive ?? false,
    isArchived: body.is_archived ?? false,
  };
}

function createRequest(body: CreateLabelBody): { name: string; color: string; description: string; exclusive: boolean; isArchived: boolean } {
  return { name: body.name, color: body.color, description: body.description, exclusive: body.exclusive, isArchived: body.is_archived };
}

function registerRepoLabelRoutes(api: ApiRegistry): void {
  const reader = { scope: 'issue', auth: 'optional', repo: { mode: 'read' }, errors: TRACKER_ERRORS } as const;
  const writer = { scope: 'issue', auth: 'required', repo: { mode: 'read' }, errors: TRACKER_ERRORS } as const;

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/labels',
    operationId: 'issueListLabels',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { page, limit } = ctx.listOptions();
        const { labels, total } = await ctx.services.clients.labels.listLabels({ owner: repoLabelOwner(ctx), page: { page, limit } });
        ctx.setTotalCount(total);
        return json(200, labels.map((label) => repoLabelOf(ctx, label)));
      }),
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/labels/{id}',
    operationId: 'issueGetLabel',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { label } = await ctx.services.clients.labels.getLabel({ owner: repoLabelOwner(ctx), ...labelRef(ctx) });
        return json(200, repoLabelOf(ctx, label));
      }),
  });

  api.route<CreateLabelBody>({
    ...writer,
    method: 'post',
    path: '/repos/{owner}/{repo}/labels',
    operationId: 'issueCreateLabel',
    body: CreateLabelOption,
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { label } = await ctx.services.clients.labels.createLabel({ owner: repoLabelOwner(ctx), ...createRequest(ctx.body) });
        return json(201, repoLabelOf(ctx, label));
      }),
  });

  api.route<EditLabelBody>({
    ...writer,
    method: 'patch',
    path: '/repos/{owner}/{repo}/labels/{id}',
    operationId: 'issueEditLabel',
    body: EditLabelOption,
    handler: (ctx) =>
      trackerAnswer(async () => {
        const request = { owner: repoLabelOwner(ctx), id: pathInt64(ctx.params.id), ...editRequest(ctx.body) };
        const { label } = await ctx.services.clients.labels.editLabel(request);
        return json(200, repoLabelOf(ctx, label));
      }),
  });

  api.route({
    ...writer,
    method: 'delete',
    path: '/repos/{owner}/{repo}/labels/{id}',
    operationId: 'issueDeleteLabel',
    handler: (ctx) =>
      trackerAnswer(async () => {
        await ctx.services.clients.labels.deleteLabel({ owner: repoLabelOwner(ctx), id: pathInt64(ctx.params.id) });
        return noContent();
      }),
  });
}

function registerOrgLabelRoutes(api: ApiRegistry): void {
  const route = { scope: 'organization', errors: TRACKER_ERRORS } as const;

  api.route({
    ...route,
    method: 'get',
    path: '/orgs/{org}/labels',
    operationId: 'orgListLabels',
    auth: 'optional',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { owner, orgName } = await orgLabelOwner(ctx, false);
        const { page, limit } = ctx.listOptions();
        const { labels, total } = await ctx.services.clients.labels.listLabels({ owner, page: { page, limit } });
        ctx.setTotalCount(total);
        return json(200, labels.map((label) => orgLabelOf(ctx, orgName, label)));
      }),
  });

  api.route({
    ...route,
    method: 'get',
    path: '/orgs/{org}/labels/{id}',
    operationId: 'orgGetLabel',
    // Gitea's route has reqToken() here, unlike the list.
    auth: 'required',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { owner, orgName } = await orgLabelOwner(ctx, false);
        const { label } = await ctx.services.clients.labels.getLabel({ owner, ...labelRef(ctx) });
        return json(200, orgLabelOf(ctx, orgName, label));
      }),
  });

  api.route<CreateLabelBody>({
    ...route,
    method: 'post',
    path: '/orgs/{org}/labels',
    operationId: 'orgCreateLabel',
    auth: 'required',
    body: CreateLabelOption,
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { owner, orgName } = await orgLabelOwner(ctx, true);
        const { label } = await ctx.services.clients.labels.createLabel({ owner, ...createRequest(ctx.body) });
        return json(201, orgLabelOf(ctx, orgName, label));
      }),
  });

  api.route<EditLabelBody>({
    ...route,
    method: 'patch',
    path: '/orgs/{org}/labels/{id}',
    operationId: 'orgEditLabel',
    auth: 'required',
    body: EditLabelOption,
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { owner, orgName } = await orgLabelOwner(ctx, true);
        const { label } = await ctx.services.clients.labels.editLabel({ owner, id: pathInt64(ctx.params.id), ...editRequest(ctx.body) });
        return json(200, orgLabelOf(ctx, orgName, label));
      }),
  });

  api.route({
    ...route,
    method: 'delete',
    path: '/orgs/{org}/labels/{id}',
    operationId: 'orgDeleteLabel',
    auth: 'required',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { owner } = await orgLabelOwner(ctx, true);
        await ctx.services.clients.labels.deleteLabel({ owner, id: pathInt64(ctx.params.id) });
        return noContent();
      }),
  });
}

/** The `{index}` issue's labels as Gitea lists them (organization labels under the organization). */
function issueLabelsReply<B>(ctx: ApiContext<B>, labels: readonly Label[]): ApiReply {
  return json(200, labels.map((label) => repoLabelOf(ctx, label)));
}

function registerIssueLabelRoutes(api: ApiRegistry): void {
  const path = '/repos/{owner}/{repo}/issues/{index}/labels';
  const reader = { scope: 'issue', auth: 'optional', repo: { mode: 'read' }, errors: TRACKER_ERRORS } as const;
  const writer = { scope: 'issue', auth: 'required', repo: { mode: 'read' }, errors: TRACKER_ERRORS } as const;
  const index = <B>(ctx: ApiContext<B>) => pathInt64(ctx.params.index);

  api.route({
    ...reader,
    method: 'get',
    path,
    operationId: 'issueGetLabels',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { labels } = await ctx.services.clients.labels.listIssueLabels({ scope: repoScopeOf(ctx), index: index(ctx) });
        return issueLabelsReply(ctx, labels);
      }),
  });

  api.route<IssueLabelsBody>({
    ...writer,
    method: 'post',
    path,
    operationId: 'issueAddLabel',
    body: IssueLabelsOption,
    handler: (ctx) =>
      trackerAnswer(async () => {
        const request = { scope: repoScopeOf(ctx), index: index(ctx), ...requestedLabels(ctx.body) };
        return issueLabelsReply(ctx, (await ctx.services.clients.labels.addIssueLabels(request)).labels);
      }),
  });

  api.route<IssueLabelsBody>({
    ...writer,
    method: 'put',
    path,
    operationId: 'issueReplaceLabels',
    body: IssueLabelsOption,
    handler: (ctx) =>
      trackerAnswer(async () => {
        const request = { scope: repoScopeOf(ctx), index: index(ctx), ...requestedLabels(ctx.body) };
        return issueLabelsReply(ctx, (await ctx.services.clients.labels.replaceIssueLabels(request)).labels);
      }),
  });

  api.route({
    ...writer,
    method: 'delete',
    path,
    operationId: 'issueClearLabels',
    handler: (ctx) =>
      trackerAnswer(async () => {
        await ctx.services.clients.labels.clearIssueLabels({ scope: repoScopeOf(ctx), index: index(ctx) });
        return noContent();
      }),
  });

  api.route({
    ...writer,
    method: 'delete',
    path: `${path}/{id}`,
    operationId: 'issueRemoveLabel',
    handler: (ctx) =>
      trackerAnswer(async () => {
        await ctx.services.clients.labels.removeIssueLabel({ scope: repoScopeOf(ctx), index: index(ctx), labelId: pathInt64(ctx.params.id) });
        return noContent();
      }),
  });
}

export function registerLabelRoutes(api: ApiRegistry): void {
  registerRepoLabelRoutes(api);
  registerOrgLabelRoutes(api);
  registerIssueLabelRoutes(api);
}
