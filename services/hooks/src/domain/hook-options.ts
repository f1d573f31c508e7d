/**
 * A hook definition as the API gives it, checked and normalised as Gitea's routers/api/v1/utils/hook.go does
 * (checkCreateHookOption, addHook, editHook): the type, `config` (url, content_type, secret, http_method and the
 * type's own keys), events, branch filter, authorization header, name and active flag.
 */
import { CairnError } from '@cairn/rpc';
import { PatternSyntaxError, globMatcher } from '@cairn/text';

/** Gitea's webhook_module.Types (modules/webhook/type.go). */
export const HOOK_TYPES: readonly string[] = ['gitea', 'gogs', 'slack', 'discord', 'dingtalk', 'telegram', 'msteams', 'feishu', 'matrix', 'wechatwork', 'packagist'];

/** The event names Gitea's addHook/editHook look for (modules/webhook/type.go HookEventType, plus `issues_only` etc.). */
export const HOOK_EVENTS: readonly string[] = [
  'create',
  'delete',
  'fork',
  'push',
  'issues',
  'issues_only',
  'issue_assign',
  'issue_label',
  'issue_milestone',
  'issue_comment',
  'pull_request',
  'pull_request_only',
  'pull_request_assign',
  'pull_request_label',
  'pull_request_milestone',
  'pull_request_comment',
  'pull_request_review',
  'pull_request_review_request',
  'pull_request_sync',
  'wiki',
  'repository',
  'release',
  'package',
  'status',
  'workflow_run',
  'workflow_job',
];

/** `config` keys kept in their own columns; every other key is the type's own and goes to `meta`. */
const COLUMN_KEYS = new Set(['url', 'content_type', 'secret', 'http_method', 'is_system_webhook']);

const CONTENT_TYPES = new Set(['json', 'form']);

/** The methods a hook may be delivered with; Gitea's form offers GET and PUT only for some types. */
const HTTP_METHODS = new Set(['POST', 'GET', 'PUT']);

/** What a hook is, apart from where it lives and its ids and times. */
export interface HookDefinition {
  type: string;
  name: string;
  url: string;
  httpMethod: string;
  contentType: string;
  /** Signs deliveries; never answered. */
  secret: string;
  /** The type's own `config` keys (slack: channel, username, icon_url, color). */
  meta: Record<string, string>;
  /** Lower-case, each once, in the order given. */
  events: string[];
  branchFilter: string;
  authorizationHeader: string;
  active: boolean;
}

/** Gitea's CreateHookOption. */
export interface CreateHookInput {
  type: string;
  config: Readonly<Record<string, string>>;
  /** Undefined: not given (["push"]). */
  events: readonly string[] | undefined;
  branchFilter: string;
  authorizationHeader: string;
  active: boolean;
  name: string;
}

/** Gitea's EditHookOption: undefined leaves the stored value. */
export interface EditHookInput {
  config: Readonly<Record<string, string>>;
  events: readonly string[] | undefined;
  branchFilter: string | undefined;
  authorizationHeader: string | undefined;
  active: boolean | undefined;
  name: string | undefined;
}

function invalid(message: string, reason: string): CairnError {
  return CairnError.invalid(message, { reason });
}

function checkedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return url;
  } catch {
    // not absolute: refused below
  }
  throw invalid('Invalid url', 'invalid_hook_url');
}

function checkedContentType(contentType: string): string {
  if (!CONTENT_TYPES.has(contentType)) throw invalid('Invalid content type', 'invalid_hook_content_type');
  return contentType;
}

function checkedHttpMethod(method: string): string {
  const upper = method.toUpperCase();
  if (!HTTP_METHODS.has(upper)) throw invalid(`Invalid http method: ${method}`, 'invalid_hook_http_method');
  return upper;
}

/** Gitea's binding rule `GlobPattern` on branch_filter (modules/validation/binding.go): empty, or a glob that compiles. */
function checkedBranchFilter(filter: string): string {
  if (filter === '') return filter;
  try {
    globMatcher(filter, { invalid: 'throw' });
  } catch (error) {
    if (error instanceof PatternSyntaxError) throw invalid('[BranchFilter]: GlobPattern', 'invalid_hook_branch_filter');
    throw error;
  }
  return filter;
}

/**
 * Gitea's event list: matched case-insensitively, stored lower-case. A name Gitea does not know sets none of its
 * flags, so it is dropped here, as Gitea's answer would not show it either. None given: ["push"].
 */
export function normalisedEvents(events: readonly string[] | undefined): string[] {
  if (events === undefined || events.length === 0) return ['push'];
  const known = events.map((event) => event.toLowerCase()).filter((event) => HOOK_EVENTS.includes(event));
  return [...new Set(known)];
}

/**
 * A slack hook's channel, trimmed (Gitea's addHook): missing is 422, a lone `#` or an empty name is 400 (Gitea's
 * IsValidSlackChannel, services/webhook/slack.go).
 */
function checkedSlackChannel(channel: string | undefined): string {
  if (channel === undefined) throw invalid('Missing config option: channel', 'missing_hook_config');
  const trimmed = channel.trim();
  if (trimmed === '' || trimmed === '#') throw invalid('Invalid slack channel name', 'invalid_slack_channel');
  return trimmed;
}

function metaOf(config: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(config).filter(([key]) => !COLUMN_KEYS.has(key)));
}

/** Gitea's checkCreateHookOption then addHook: the first failure, in Gitea's order. */
export function hookFromCreate(input: CreateHookInput): HookDefinition {
  if (!HOOK_TYPES.includes(input.type)) throw invalid(`Invalid hook type: ${input.type}`, 'invalid_hook_type');
  for (const key of ['url', 'content_type']) {
    if (input.config[key] === undefined) throw invalid(`Missing config option: ${key}`, 'missing_hook_config');
  }
  const contentType = checkedContentType(input.config.content_type);
  const url = checkedUrl(input.config.url);
  const meta = metaOf(input.config);
  if (input.type === 'slack') meta.channel = checkedSlackChannel(input.config.channel);
  return {
    type: input.type,
    name: input.name,
    url,
    httpMethod: checkedHttpMethod(input.config.http_method ?? 'POST'),
    contentType,
    secret: input.config.secret ?? '',
    meta,
    events: normalisedEvents(input.events),
    branchFilter: checkedBranchFilter(input.branchFilter),
    authorizationHeader: input.authorizationHeader,
    active: input.active,
  };
}

/**
 * Gitea's editHook: the `config` keys given replace the stored ones, with the same checks as on create; the other
 * fields change only when given (Gitea's pointer fields). Unlike Gitea, events not given stay as they are (Gitea
 * resets them to ["push"]) and so do the branch filter and authorization header (Gitea clears them).
 */
export function hookAfterEdit(stored: HookDefinition, edit: EditHookInput): HookDefinition {
  const { config } = edit;
  const meta = { ...stored.meta, ...metaOf(config) };
  if (stored.type === 'slack' && config.channel !== undefined) meta.channel = checkedSlackChannel(config.channel);
  return {
    type: stored.type,
    name: edit.name ?? stored.name,
    url: config.url === undefined ? stored.url : checkedUrl(config.url),
    httpMethod: config.http_method === undefined ? stored.httpMethod : checkedHttpMethod(config.http_method),
    contentType: config.content_type === undefined ? stored.contentType : checkedContentType(config.content_type),
    secret: config.secret ?? stored.secret,
    meta,
    events: edit.events === undefined ? stored.events : normalisedEvents(edit.events),
    branchFilter: edit.branchFilter === undefined ? stored.branchFilter : checkedBranchFilter(edit.branchFilter),
    authorizationHeader: edit.authorizationHeader ?? stored.authorizationHeader,
    active: edit.active ?? stored.active,
  };
}
