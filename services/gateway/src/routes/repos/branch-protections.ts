/**
 * Branch protection rules (routers/api/v1/repo/branch.go, repository admins with a token): list, get, create,
 * edit, delete and reorder. repos stores the rules and checks the names in their allow lists; an edit changes
 * only the fields the body gives (Gitea's pointer fields and non-nil lists).
 */
import { type GoField, HttpError, go, goStruct } from '@cairn/http';
import { BranchProtection } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code } from '@cairn/rpc';
import { type BranchProtectionField, BRANCH_PROTECTION_FIELDS, toApiBranchProtection } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, json, noContent, repoOf } from '../../api/types';
import { answering } from './git-context';

const RULE_EXISTS_MESSAGE = 'Branch protection already exist';

/** A rule that does not exist is Gitea's bare `APIErrorNotFound()`. */
const RULE_NOT_FOUND = { [Code.NOT_FOUND]: () => HttpError.notFound() };

type FieldKind = 'bool' | 'int64' | 'string' | 'strings';

/** What Go type each rule field has in Gitea's option structs. */
const FIELD_KINDS: Readonly<Record<BranchProtectionField, FieldKind>> = {
  enablePush: 'bool',
  enablePushWhitelist: 'bool',
  pushWhitelistUsernames: 'strings',
  pushWhitelistTeams: 'strings',
  pushWhitelistDeployKeys: 'bool',
  enableForcePush: 'bool',
  enableForcePushAllowlist: 'bool',
  forcePushAllowlistUsernames: 'strings',
  forcePushAllowlistTeams: 'strings',
  forcePushAllowlistDeployKeys: 'bool',
  enableMergeWhitelist: 'bool',
  mergeWhitelistUsernames: 'strings',
  mergeWhitelistTeams: 'strings',
  enableStatusCheck: 'bool',
  statusCheckContexts: 'strings',
  requiredApprovals: 'int64',
  enableApprovalsWhitelist: 'bool',
  approvalsWhitelistUsername: 'strings',
  approvalsWhitelistTeams: 'strings',
  blockOnRejectedReviews: 'bool',
  blockOnOfficialReviewRequests: 'bool',
  blockOnOutdatedBranch: 'bool',
  dismissStaleApprovals: 'bool',
  ignoreStaleApprovals: 'bool',
  requireSignedCommits: 'bool',
  protectedFilePatterns: 'string',
  unprotectedFilePatterns: 'string',
  blockAdminMergeOverride: 'bool',
};

/** `enable_push` → `EnablePush`: the Go field name (only used in messages). */
function goNameOf(jsonName: string): string {
  return jsonName.replace(/(^|_)(\w)/g, (_match, _sep: string, letter: string) => letter.toUpperCase());
}

function valueField(kind: FieldKind, goName: string): GoField<unknown> {
  switch (kind) {
    case 'bool':
      return go.bool(goName);
    case 'int64':
      return go.int64(goName);
    case 'string':
      return go.string(goName);
    case 'strings':
      return go.stringSlice(goName);
  }
}

/** Edit bodies: absent (nil) leaves the field as it is, for lists too. */
function pointerField(kind: FieldKind, goName: string): GoField<unknown> {
  switch (kind) {
    case 'bool':
      return go.boolPtr(goName);
    case 'int64':
      return go.int64Ptr(goName);
    case 'string':
      return go.stringPtr(goName);
    case 'strings':
      return go.stringSlicePtr(goName);
  }
}

function ruleFields(field: (kind: FieldKind, goName: string) => GoField<unknown>): Record<string, GoField<unknown>> {
  return Object.fromEntries(BRANCH_PROTECTION_FIELDS.map(([jsonName, protoName]) => [jsonName, field(FIELD_KINDS[protoName], goNameOf(jsonName))]));
}

/** Gitea's `CreateBranchProtectionOption`. */
export const CreateBranchProtectionOption = goStruct('CreateBranchProtectionOption', {
  branch_name: go.string('BranchName'),
  rule_name: go.string('RuleName'),
  priority: go.int64('Priority'),
  ...ruleFields(valueField),
});

/** Gitea's `EditBranchProtectionOption`. */
export const EditBranchProtectionOption = goStruct('EditBranchProtectionOption', {
  priority: go.int64Ptr('Priority'),
  ...ruleFields(pointerField),
});

/** Gitea's `UpdateBranchProtectionPriories`. */
export const UpdateBranchProtectionPriories = goStruct('UpdateBranchProtectionPriories', {
  ids: go.int64Slice('IDs'),
});

/** A rule with the body's fields over `base`, and the JSON names of the fields the body gave. */
function applyFields(base: BranchProtection, body: Readonly<Record<string, unknown>>): { protection: BranchProtection; fields: string[] } {
  const protection: Record<string, unknown> = { ...base };
  const fields: string[] = [];
  if (body.priority !== undefined) {
    protection.priority = body.priority;
    fields.push('priority');
  }
  for (const [jsonName, protoName] of BRANCH_PROTECTION_FIELDS) {
    const value = body[jsonName];
    if (value === undefined) continue;
    protection[protoName] = value;
    fields.push(jsonName);
  }
  return { protection: protection as unknown as BranchProtection, fields };
}

function ruleNameOf<B>(ctx: ApiContext<B>): string {
  return ctx.params.name ?? '';
}

export function registerBranchProtectionRoutes(api: ApiRegistry): void {
  const route = { scope: 'repository', auth: 'required', repo: { mode: 'admin' } } as const;
  const changing = { ...route, repo: { mode: 'admin', archived: 'refuse' } } as const;

  api.route({
    ...route,
    method: 'get',
    path: '/repos/{owner}/{repo}/branch_protections',
    operationId: 'repoListBranchProtection',
    handler: async (ctx) => {
      const { protections } = await ctx.services.clients.branchProtections.listBranchProtections({ viewer: ctx.viewer, repoId: repoOf(ctx).repository.id });
      return json(200, protections.map(toApiBranchProtection));
    },
  });

  api.route({
    ...changing,
    method: 'post',
    path: '/repos/{owner}/{repo}/branch_protections',
    operationId: 'repoCreateBranchProtection',
    body: CreateBranchProtectionOption,
    handler: async (ctx) => {
      const body = ctx.body as Readonly<Record<string, unknown>> & { rule_name: string; branch_name: string };
      const ruleName = body.rule_name || body.branch_name;
      if (ruleName === '') throw HttpError.badRequest('both rule_name and branch_name are empty');
      const { protection } = applyFields(BranchProtection.fromPartial({ ruleName }), body);
      const created = await answering(
        ctx.services.clients.branchProtections.createBranchProtection({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id, protection }),
        { [Code.ALREADY_EXISTS]: () => HttpError.forbidden(RULE_EXISTS_MESSAGE) },
      );
      if (created.protection === undefined) throw new Error('CreateBranchProtection answered without the rule');
      return json(201, toApiBranchProtection(created.protection));
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/repos/{owner}/{repo}/branch_protections/{name}',
    operationId: 'repoGetBranchProtection',
    handler: async (ctx) => {
      const { protection } = await answering(
        ctx.services.clients.branchProtections.getBranchProtection({ viewer: ctx.viewer, repoId: repoOf(ctx).repository.id, ruleName: ruleNameOf(ctx) }),
        RULE_NOT_FOUND,
      );
      if (protection === undefined) throw new Error('GetBranchProtection answered without the rule');
      return json(200, toApiBranchProtection(protection));
    },
  });

  api.route({
    ...changing,
    method: 'patch',
    path: '/repos/{owner}/{repo}/branch_protections/{name}',
    operationId: 'repoEditBranchProtection',
    body: EditBranchProtectionOption,
    handler: async (ctx) => {
      const ruleName = ruleNameOf(ctx);
      const { protection, fields } = applyFields(BranchProtection.fromPartial({ ruleName }), ctx.body as Readonly<Record<string, unknown>>);
      const updated = await answering(
        ctx.services.clients.branchProtections.updateBranchProtection({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id, ruleName, protection, fields }),
        RULE_NOT_FOUND,
      );
      if (updated.protection === undefined) throw new Error('UpdateBranchProtection answered without the rule');
      return json(200, toApiBranchProtection(updated.protection));
    },
  });

  api.route({
    ...route,
    method: 'delete',
    path: '/repos/{owner}/{repo}/branch_protections/{name}',
    operationId: 'repoDeleteBranchProtection',
    handler: async (ctx) => {
      await answering(
        ctx.services.clients.branchProtections.deleteBranchProtection({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id, ruleName: ruleNameOf(ctx) }),
        RULE_NOT_FOUND,
      );
      return noContent();
    },
  });

  api.route({
    ...changing,
    method: 'post',
    path: '/repos/{owner}/{repo}/branch_protections/priority',
    operationId: 'repoUpdateBranchProtectionPriories',
    body: UpdateBranchProtectionPriories,
    handler: async (ctx) => {
      await ctx.services.clients.branchProtections.setBranchProtectionPriority({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id, ids: ctx.body.ids });
      return noContent();
    },
  });
}
