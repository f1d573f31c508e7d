/**
 * What the chat-style hook types share: reading a Gitea payload, Gitea's link formatters, colors, ref names,
 * the event dispatch of services/webhook/payloader.go and the texts of services/webhook/general.go
 * (`[repo] Issue opened: #1 title by user`, …). Renderers only lay these texts out in their own message shape.
 */
import { createHash } from 'node:crypto';
import type { DeliveryContent, GiteaPayload, HookTarget, RenderedRequest } from './types';

// ---------------------------------------------------------------------------------------------------------------
// Reading payload JSON. Payloads come from Cairn's own builder, but a missing optional object (milestone,
// author) reads as empty like a Go zero value instead of throwing.

export type JsonObject = { readonly [key: string]: unknown };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object at `path` ({} when absent). */
export function obj(from: unknown, ...path: string[]): JsonObject {
  let current: unknown = from;
  for (const key of path) current = isObject(current) ? current[key] : undefined;
  return isObject(current) ? current : {};
}

function at(from: unknown, path: string[]): unknown {
  const last = path[path.length - 1];
  return last === undefined ? from : obj(from, ...path.slice(0, -1))[last];
}

/** The string at `path` ('' when absent; numbers as their decimal text). */
export function str(from: unknown, ...path: string[]): string {
  const value = at(from, path);
  if (typeof value === 'string') return value;
  return typeof value === 'number' ? String(value) : '';
}

/** The number at `path` (0 when absent). */
export function num(from: unknown, ...path: string[]): number {
  const value = at(from, path);
  return typeof value === 'number' ? value : 0;
}

/** The boolean at `path` (false when absent). */
export function bool(from: unknown, ...path: string[]): boolean {
  return at(from, path) === true;
}

/** The objects of the array at `path` ([] when absent). */
export function objects(from: unknown, ...path: string[]): JsonObject[] {
  const value = at(from, path);
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** The payload's repository: `repository` in every payload (Go field `Repo` of create/delete/push/fork). */
export function repoOf(p: GiteaPayload): JsonObject {
  return obj(p, 'repository');
}

/** A user's login (api.User.UserName is `login` in JSON). */
export function login(user: JsonObject): string {
  return str(user, 'login');
}

/** `setting.AppURL + url.PathEscape(name)`: the user's page, which api.User carries as `html_url`. */
export function userURL(user: JsonObject): string {
  return str(user, 'html_url');
}

// ---------------------------------------------------------------------------------------------------------------
// Escaping as Go does it.

/** Go's html.EscapeString. */
export function htmlEscape(text: string): string {
  return text.replace(/[&'<>"]/g, (c) => ({ '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;' })[c] ?? c);
}

/** Go's url.PathEscape (one path segment: `/` escaped; `$&+:=@` kept; `!'()*` escaped). */
export function pathEscape(segment: string): string {
  return encodeURIComponent(segment)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%(24|26|2B|3A|3D|40)/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Go's url.QueryEscape: only `A-Za-z0-9-_.~` kept, a space as `+`. */
export function queryEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Gitea's util.PathEscapeSegments: each `/`-separated segment escaped, the slashes kept. */
export function pathEscapeSegments(path: string): string {
  return path.split('/').map(pathEscape).join('/');
}

/**
 * Gitea's json.MarshalIndent(payload, "", "  "): two-space indentation, and `<`, `>`, `&`, U+2028/9 written as
 * \u escapes (Go's encoder escapes HTML in strings), so bodies match Gitea's byte for byte.
 */
export function marshalIndent(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** sha1 hex of a body (matrix's transaction id, services/webhook/matrix.go getMatrixTxnID). */
export function sha1Hex(body: string): string {
  return createHash('sha1').update(body).digest('hex');
}

// ---------------------------------------------------------------------------------------------------------------
// Links and colors (services/webhook/general.go, discord.go's color table).

/** general.go linkFormatter: (url, text) → the type's link markup. */
export type LinkFormatter = (url: string, text: string) => string;

/** noneLinkFormatter: the text alone. */
export const noneLink: LinkFormatter = (_url, text) => text;

/** htmlLinkFormatter: `<a href="url">text</a>`, both escaped. */
export const htmlLink: LinkFormatter = (url, text) => `<a href="${htmlEscape(url)}">${htmlEscape(text)}</a>`;

/** Gitea's webhook colors (services/webhook/discord.go). */
export const COLORS = {
  green: 0x1ac600,
  greenLight: 0xbfe5bf,
  yellow: 0xffd930,
  grey: 0x4f545c,
  purple: 0x7289da,
  orange: 0xeb6420,
  orangeLight: 0xe68d60,
  red: 0xff3232,
} as const;

/** fmt.Sprintf("%x", color): lower-case hex without `#` (slack attachments, msteams themeColor). */
export function hexColor(color: number): string {
  return color.toString(16);
}

// ---------------------------------------------------------------------------------------------------------------
// Refs (modules/git/ref.go RefName.ShortName, RefURL).

const BRANCH_PREFIX = 'refs/heads/';
const TAG_PREFIX = 'refs/tags/';

/** RefName(ref).ShortName(): `refs/heads/x` → x, `refs/tags/v1` → v1, `refs/pull/3/head` → 3; short names stay. */
export function refShortName(ref: string): string {
  if (ref.startsWith(BRANCH_PREFIX)) return ref.slice(BRANCH_PREFIX.length);
  if (ref.startsWith(TAG_PREFIX)) return ref.slice(TAG_PREFIX.length);
  if (ref.startsWith('refs/remotes/')) return ref.slice('refs/remotes/'.length);
  const pull = /^refs\/pull\/([^/]+)\/head$/.exec(ref);
  if (pull?.[1] !== undefined) return pull[1];
  return ref;
}

const SHA = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;

/** git.RefURL: a branch or tag page; a short name that is not a commit id is taken for a branch. */
export function refURL(repoURL: string, ref: string): string {
  const name = pathEscapeSegments(refShortName(ref));
  if (ref.startsWith(TAG_PREFIX)) return `${repoURL}/src/tag/${name}`;
  if (ref.startsWith(BRANCH_PREFIX) || !SHA.test(ref)) return `${repoURL}/src/branch/${name}`;
  return `${repoURL}/src/commit/${name}`;
}

/** The `/src/<short name>` link discord, dingtalk, msteams and telegram use for refs and pushes. */
export function srcURL(repoURL: string, ref: string): string {
  return `${repoURL}/src/${pathEscapeSegments(refShortName(ref))}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Push summaries.

/** "1 new commit" / "N new commits" (slack, discord, dingtalk, msteams, telegram). */
export function newCommitsText(p: GiteaPayload): string {
  const total = num(p, 'total_commits');
  return total === 1 ? '1 new commit' : `${total} new commits`;
}

/**
 * The push title link of discord/dingtalk/msteams/telegram: the single commit, else the compare URL, else the
 * branch's `/src/` page.
 */
export function pushTitleLink(p: GiteaPayload): string {
  const link = num(p, 'total_commits') === 1 ? str(objects(p, 'commits')[0], 'url') : str(p, 'compare_url');
  return link !== '' ? link : srcURL(str(repoOf(p), 'html_url'), str(p, 'ref'));
}

/** `[owner/repo:branch] N new commits`: the push title of discord, dingtalk and msteams. */
export function pushTitle(p: GiteaPayload): string {
  return `[${str(repoOf(p), 'full_name')}:${refShortName(str(p, 'ref'))}] ${newCommitsText(p)}`;
}

/** A commit's short id (Go's commit.ID[:7]). */
export function shortId(commit: JsonObject): string {
  return str(commit, 'id').slice(0, 7);
}

/** The commit message without trailing line breaks (strings.TrimRight(message, "\r\n")). */
export function trimMessage(message: string): string {
  return message.replace(/[\r\n]+$/, '');
}

/** `[abcdef1](url) message - author`: a commit line of dingtalk, feishu and msteams pushes. */
export function markdownCommitLine(commit: JsonObject): string {
  const author = str(commit, 'author', 'name');
  return `[${shortId(commit)}](${str(commit, 'url')}) ${trimMessage(str(commit, 'message'))}${author !== '' ? ` - ${author}` : ''}`;
}

// ---------------------------------------------------------------------------------------------------------------
// general.go texts: (text, title, extra markdown, color) for issues, pull requests, comments, releases, wiki,
// status; `withSender` appends ` by <sender>`.

export interface EventText {
  /** The one-line summary (`[repo] Issue opened: #1 title`). */
  text: string;
  /** `#N title` for issues, pull requests and comments; '' otherwise. */
  title: string;
  /** The body that goes with the text (issue/PR body when opened or edited, review content). */
  extra: string;
  color: number;
}

/** A repository's link named by its full name. */
export function repoLink(repo: JsonObject, link: LinkFormatter): string {
  return link(str(repo, 'html_url'), str(repo, 'full_name'));
}

/** The payload sender's link named by its login. */
export function senderLink(p: GiteaPayload, link: LinkFormatter): string {
  const sender = obj(p, 'sender');
  return link(userURL(sender), login(sender));
}

function bySender(p: GiteaPayload, link: LinkFormatter): string {
  return ` by ${senderLink(p, link)}`;
}

const ISSUE_ACTIONS: Readonly<Record<string, readonly [string, number]>> = {
  opened: ['opened', COLORS.orange],
  closed: ['closed', COLORS.red],
  reopened: ['re-opened', COLORS.yellow],
  edited: ['edited', COLORS.yellow],
  unassigned: ['unassigned', COLORS.yellow],
  label_updated: ['labels updated', COLORS.yellow],
  label_cleared: ['labels cleared', COLORS.yellow],
  synchronized: ['synchronized', COLORS.yellow],
  demilestoned: ['milestone cleared', COLORS.yellow],
  review_requested: ['review requested', COLORS.yellow],
  review_request_removed: ['review request removed', COLORS.yellow],
  reviewed: ['reviewed', COLORS.yellow],
};

/**
 * getIssuesPayloadInfo / getPullRequestPayloadInfo: `[repo] Issue opened: #N title` and `[repo] Pull request
 * merged: …` (a merge is action `closed` with `pull_request.merged`).
 */
export function issueOrPullText(p: GiteaPayload, link: LinkFormatter, withSender: boolean): EventText {
  const isPull = isObject(p['pull_request']);
  const item = obj(p, isPull ? 'pull_request' : 'issue');
  const repo = repoOf(p);
  const repoURL = str(repo, 'html_url');
  const noun = isPull ? 'Pull request' : 'Issue';
  const title = `#${num(p, 'number')} ${str(item, 'title')}`;
  // Gitea links an issue by its repository page and a pull request by its own `url`.
  const titleLink = link(isPull ? str(item, 'url') : `${repoURL}/issues/${num(p, 'number')}`, title);
  const repoName = repoLink(repo, link);
  const action = str(p, 'action');
  let text = '';
  let color: number = COLORS.yellow;
  let extra = '';
  if (action === 'assigned') {
    const names = objects(item, 'assignees').map((user) => link(userURL(user), login(user)));
    text = `[${repoName}] ${noun} assigned to ${names.join(', ')}: ${titleLink}`;
    color = COLORS.green;
  } else if (action === 'milestoned') {
    const milestone = obj(item, 'milestone');
    const milestoneLink = link(`${repoURL}/milestone/${num(milestone, 'id')}`, str(milestone, 'title'));
    text = `[${repoName}] ${noun} milestoned to ${milestoneLink}: ${titleLink}`;
  } else if (isPull && action === 'closed' && bool(item, 'merged')) {
    text = `[${repoName}] ${noun} merged: ${titleLink}`;
    color = COLORS.purple;
  } else {
    const known = ISSUE_ACTIONS[action];
    if (known !== undefined) {
      text = `[${repoName}] ${noun} ${known[0]}: ${titleLink}`;
      color = known[1];
    }
  }
  if (isPull && action === 'opened') color = COLORS.green;
  if (action === 'opened' || action === 'edited') extra = str(item, 'body');
  if (isPull && action === 'reviewed') extra = str(p, 'review', 'content');
  if (withSender) text += bySender(p, link);
  return { text, title, extra, color };
}

/** getIssueCommentPayloadInfo: `[repo] New comment on issue #N title`. */
export function commentText(p: GiteaPayload, link: LinkFormatter, withSender: boolean): EventText {
  const repo = repoOf(p);
  const isPull = bool(p, 'is_pull');
  const title = `#${num(p, 'issue', 'number')} ${str(p, 'issue', 'title')}`;
  const kind = isPull ? 'pull request' : 'issue';
  const titleLink = link(str(p, 'comment', isPull ? 'pull_request_url' : 'issue_url'), title);
  const repoName = repoLink(repo, link);
  let text = '';
  let color: number = COLORS.yellow;
  switch (str(p, 'action')) {
    case 'created':
      text = `[${repoName}] New comment on ${kind} ${titleLink}`;
      color = isPull ? COLORS.greenLight : COLORS.orangeLight;
      break;
    case 'edited':
      text = `[${repoName}] Comment edited on ${kind} ${titleLink}`;
      break;
    case 'deleted':
      text = `[${repoName}] Comment deleted on ${kind} ${titleLink}`;
      color = COLORS.red;
      break;
  }
  if (withSender) text += bySender(p, link);
  return { text, title, extra: str(p, 'comment', 'body'), color };
}

const RELEASE_ACTIONS: Readonly<Record<string, readonly [string, number]>> = {
  published: ['created', COLORS.green],
  updated: ['updated', COLORS.yellow],
  deleted: ['deleted', COLORS.red],
};

/** getReleasePayloadInfo: `[repo] Release created: v1.0`. */
export function releaseText(p: GiteaPayload, link: LinkFormatter, withSender: boolean): EventText {
  const repo = repoOf(p);
  const tag = str(p, 'release', 'tag_name');
  const refLink = link(`${str(repo, 'html_url')}/releases/tag/${pathEscapeSegments(tag)}`, tag);
  const known = RELEASE_ACTIONS[str(p, 'action')];
  let text = known === undefined ? '' : `[${repoLink(repo, link)}] Release ${known[0]}: ${refLink}`;
  if (withSender) text += bySender(p, link);
  return { text, title: '', extra: '', color: known?.[1] ?? 0 };
}

/** The wiki page's URL (`<repo>/wiki/<page>`). */
export function wikiURL(p: GiteaPayload): string {
  return `${str(repoOf(p), 'html_url')}/wiki/${pathEscape(str(p, 'page'))}`;
}

/** getWikiPayloadInfo: `[repo] New wiki page 'Home' (comment)`. */
export function wikiText(p: GiteaPayload, link: LinkFormatter, withSender: boolean): EventText {
  const repo = repoOf(p);
  const repoName = repoLink(repo, link);
  const pageLink = link(wikiURL(p), str(p, 'page'));
  const action = str(p, 'action');
  let text = '';
  let color: number = COLORS.green;
  if (action === 'created') text = `[${repoName}] New wiki page '${pageLink}'`;
  if (action === 'edited') [text, color] = [`[${repoName}] Wiki page '${pageLink}' edited`, COLORS.yellow];
  if (action === 'deleted') [text, color] = [`[${repoName}] Wiki page '${pageLink}' deleted`, COLORS.red];
  if (action !== 'deleted' && str(p, 'comment') !== '') text += ` (${str(p, 'comment')})`;
  if (withSender) text += bySender(p, link);
  return { text, title: '', extra: '', color };
}

/** getStatusPayloadInfo: `Commit Status changed: ci[sha]:description`. */
export function statusText(p: GiteaPayload, link: LinkFormatter, withSender: boolean): EventText {
  let text = `Commit Status changed: ${link(str(p, 'target_url'), `${str(p, 'context')}[${str(p, 'sha')}]:${str(p, 'description')}`)}`;
  if (withSender) text += bySender(p, link);
  return { text, title: '', extra: '', color: COLORS.green };
}

/** `[owner/repo] branch x created` (create/delete titles of discord, dingtalk, feishu, msteams, wechatwork). */
export function refChangeTitle(p: GiteaPayload, verb: 'created' | 'deleted'): string {
  return `[${str(repoOf(p), 'full_name')}] ${str(p, 'ref_type')} ${refShortName(str(p, 'ref'))} ${verb}`;
}

/** `base is forked to fork` (the payload's `forkee` is the original repository). */
export function forkTitle(p: GiteaPayload): string {
  return `${str(p, 'forkee', 'full_name')} is forked to ${str(repoOf(p), 'full_name')}`;
}

/** `[owner/repo] Repository created|deleted` ('' for another action). */
export function repositoryTitle(p: GiteaPayload): string {
  const action = str(p, 'action');
  return action === 'created' || action === 'deleted' ? `[${str(repoOf(p), 'full_name')}] Repository ${action}` : '';
}

/** The review kind of a review event type (discord.go parseHookPullRequestEventType). */
export function reviewAction(eventType: string): string {
  switch (eventType) {
    case 'pull_request_review_approved':
      return 'approved';
    case 'pull_request_review_rejected':
      return 'rejected';
    case 'pull_request_review_comment':
      return 'comment';
    default:
      throw new Error(`unknown review event type ${eventType}`);
  }
}

/**
 * `[owner/repo] Pull request review approved: #4 title` ('' unless the action is `reviewed`); dingtalk, feishu
 * and wechatwork write ` : ` before the number.
 */
export function reviewTitle(p: GiteaPayload, eventType: string, separator: ':' | ' :' = ':'): string {
  if (str(p, 'action') !== 'reviewed') return '';
  return `[${str(repoOf(p), 'full_name')}] Pull request review ${reviewAction(eventType)}${separator} #${str(p, 'number')} ${str(p, 'pull_request', 'title')}`;
}

/** The color of a review event (discord and msteams). */
export function reviewColor(eventType: string): number {
  if (eventType === 'pull_request_review_approved') return COLORS.green;
  if (eventType === 'pull_request_review_rejected') return COLORS.red;
  return eventType === 'pull_request_review_comment' ? COLORS.grey : COLORS.yellow;
}

/**
 * getIssuesInfo / getPullRequestInfo / getIssuesCommentInfo: the line-per-fact layout feishu uses
 * (`[Issue-owner/repo #1]: opened\ntitle`, link, `Issue by x`, `Operator: y`, …).
 */
export function issueFacts(p: GiteaPayload): string[] {
  const isPull = isObject(p['pull_request']);
  const item = obj(p, isPull ? 'pull_request' : 'issue');
  const repo = repoOf(p);
  const action = str(p, 'action');
  const sender = login(obj(p, 'sender'));
  const assignees = objects(item, 'assignees').map(login);
  const lines = [
    `[${isPull ? 'PullRequest' : 'Issue'}-${str(repo, 'full_name')} #${num(item, 'number')}]: ${action}\n${str(item, 'title')}`,
    str(item, 'html_url'),
    `${isPull ? 'PullRequest' : 'Issue'} by ${login(obj(item, 'user'))}`,
    `Operator: ${sender}`,
  ];
  if (assignees.length > 0) {
    if (action === 'assigned') lines.push(`${sender} assign this to ${assignees[assignees.length - 1] ?? ''}`);
    if (action === 'unassigned') lines.push(`${sender} unassigned this for someone`);
    if (action === 'milestoned') lines.push(`${str(repo, 'html_url')}/milestone/${num(item, 'milestone', 'id')}`);
    lines.push(`Assignees: ${assignees.join(', ')}`);
  }
  return lines;
}

/** getIssuesCommentInfo's lines (`[Comment-owner/repo #1]: created\ntitle`, link, by, operator). */
export function commentFacts(p: GiteaPayload): string[] {
  const issue = obj(p, 'issue');
  return [
    `[Comment-${str(repoOf(p), 'full_name')} #${num(issue, 'number')}]: ${str(p, 'action')}\n${str(issue, 'title')}`,
    str(issue, 'html_url'),
    `${bool(p, 'is_pull') ? 'PullRequest' : 'Issue'} by ${login(obj(issue, 'user'))}`,
    `Operator: ${login(obj(p, 'sender'))}`,
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Dispatch (services/webhook/payloader.go newPayload): the fine event type picks the convertor method.

/** One hook type's message for each payload kind (Gitea's payloadConvertor[T]). */
export interface Convertor<T> {
  create(p: GiteaPayload): T;
  delete(p: GiteaPayload): T;
  fork(p: GiteaPayload): T;
  push(p: GiteaPayload): T;
  issue(p: GiteaPayload): T;
  issueComment(p: GiteaPayload): T;
  pullRequest(p: GiteaPayload): T;
  review(p: GiteaPayload, eventType: string): T;
  repository(p: GiteaPayload): T;
  release(p: GiteaPayload): T;
  wiki(p: GiteaPayload): T;
  status(p: GiteaPayload): T;
}

/** The message for `content`; an event type Gitea has no conversion for is an error, as in Gitea. */
export function convert<T>(convertor: Convertor<T>, content: DeliveryContent): T {
  const p = content.payload;
  switch (content.eventType) {
    case 'create':
      return convertor.create(p);
    case 'delete':
      return convertor.delete(p);
    case 'fork':
      return convertor.fork(p);
    case 'push':
      return convertor.push(p);
    case 'issues':
    case 'issue_assign':
    case 'issue_label':
    case 'issue_milestone':
      return convertor.issue(p);
    case 'issue_comment':
    case 'pull_request_comment':
      // A pull request comment event carries either a comment payload or (a review comment) a pull request one.
      return isObject(p['comment']) ? convertor.issueComment(p) : convertor.pullRequest(p);
    case 'pull_request':
    case 'pull_request_assign':
    case 'pull_request_label':
    case 'pull_request_milestone':
    case 'pull_request_sync':
    case 'pull_request_review_request':
      return convertor.pullRequest(p);
    case 'pull_request_review_approved':
    case 'pull_request_review_rejected':
    case 'pull_request_review_comment':
      return convertor.review(p, content.eventType);
    case 'repository':
      return convertor.repository(p);
    case 'release':
      return convertor.release(p);
    case 'wiki':
      return convertor.wiki(p);
    case 'status':
      return convertor.status(p);
    default:
      throw new Error(`hook type cannot send event type ${content.eventType}`);
  }
}

/** newJSONRequest: the message as indented JSON, POST unless the hook names a method. */
export function jsonRequest(hook: HookTarget, message: unknown): RenderedRequest {
  return { url: hook.url, method: hook.httpMethod || 'POST', contentType: 'application/json', body: marshalIndent(message) };
}
