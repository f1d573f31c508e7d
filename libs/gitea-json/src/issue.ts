/**
 * issues' Issue → Gitea's `Issue` JSON (services/convert/issue.go `toIssue`). Users arrive in batches for the whole
 * list: the posters shaped for the viewer (`ToUser(ctx, issue.Poster, doer)`), the assignees shaped for an anonymous
 * caller as Gitea does (`ToUser(ctx, assignee, nil)`), so one accounts call per shaping, never one per row.
 */
import { goTime } from '@cairn/http';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Issue, Label, Milestone } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { ConvertServices, ConvertWith } from './services';
import { ghostUser } from './ghost-user';
import { type ApiAttachment, attachmentsByParent } from './attachment';
import { type ApiLabel, toApiRepoLabel } from './label';
import { type ApiMilestone, toApiMilestone } from './milestone';
import { repoApiUrl, repoHtmlUrl } from './repository';
import { type ApiUser, toApiUser } from './user';

/** Gitea's `[repository.pull-request] WORK_IN_PROGRESS_PREFIXES` default. */
export const WORK_IN_PROGRESS_PREFIXES: readonly string[] = ['WIP:', '[WIP]'];

/** Gitea's IsWorkInProgress: the title starts with a WIP prefix (any case). */
export function isWorkInProgress(title: string): boolean {
  const upper = title.toUpperCase();
  return WORK_IN_PROGRESS_PREFIXES.some((prefix) => upper.startsWith(prefix.toUpperCase()));
}

/** Gitea's `RepositoryMeta`. */
export interface ApiRepositoryMeta {
  id: number;
  name: string;
  owner: string;
  full_name: string;
}

/** Gitea's `PullRequestMeta`. */
export interface ApiPullRequestMeta {
  merged: boolean;
  merged_at: string | null;
  draft: boolean;
  html_url: string;
}

/** Gitea's `api.Issue`, keys in its order. */
export interface ApiIssue {
  id: number;
  url: string;
  html_url: string;
  number: number;
  user: ApiUser;
  original_author: string;
  original_author_id: number;
  title: string;
  body: string;
  ref: string;
  assets: ApiAttachment[];
  labels: ApiLabel[];
  milestone: ApiMilestone | null;
  assignee: ApiUser | null;
  assignees: ApiUser[] | null;
  state: 'open' | 'closed';
  is_locked: boolean;
  comments: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  due_date: string | null;
  time_estimate: number;
  pull_request: ApiPullRequestMeta | null;
  repository: ApiRepositoryMeta;
  pin_order: number;
  content_version: number;
}

/** `{ROOT_URL}{owner}/{repo}/issues/{index}` (`/pulls/` for a pull request), as Gitea's Issue.HTMLURL. */
export function issueHtmlUrl(rootUrl: string, repository: Repository, issue: Pick<Issue, 'index' | 'isPull'>): string {
  return `${repoHtmlUrl(rootUrl, repository)}/${issue.isPull ? 'pulls' : 'issues'}/${issue.index}`;
}

/** `{ROOT_URL}api/v1/repos/{owner}/{repo}/issues/{index}`, as Gitea's Issue.APIURL (pull requests too). */
export function issueApiUrl(rootUrl: string, repository: Repository, issue: Pick<Issue, 'index'>): string {
  return `${repoApiUrl(rootUrl, repository)}/issues/${issue.index}`;
}

async function usersById(services: ConvertWith<'users'> & Pick<ConvertServices, 'publicUsers'>, ids: readonly number[], viewer: Actor | undefined): Promise<Map<number, User>> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  if (wanted.length === 0) return new Map();
  const load = async (missing: number[]) => (await services.clients.users.batchGetUsers({ ids: missing, viewer })).users;
  // Users as an anonymous caller sees them hold nothing private, so they may come from the gateway's memory.
  if (viewer === undefined && services.publicUsers !== undefined) return services.publicUsers.usersByIds(wanted, load);
  return new Map((await load(wanted)).map((user) => [user.id, user]));
}

/** `convert` run once per key (`keyOf`): a list shows the same users, labels and milestones on many issues. */
function onceEach<A, V>(keyOf: (value: A) => number, convert: (value: A) => V): (value: A) => V {
  const done = new Map<number, V>();
  return (value) => {
    const key = keyOf(value);
    if (done.has(key)) return done.get(key) as V;
    const converted = convert(value);
    done.set(key, converted);
    return converted;
  };
}

const idOf = (value: { id: number }): number => value.id;
const itself = (id: number): number => id;

/** What every issue of one repository shares: its addresses, its `repository` object and its labels. */
interface RepositoryView {
  apiUrl: string;
  htmlUrl: string;
  meta: ApiRepositoryMeta;
  label: (label: Label) => ApiLabel;
}

function repositoryView(rootUrl: string, repository: Repository): RepositoryView {
  return {
    apiUrl: repoApiUrl(rootUrl, repository),
    htmlUrl: repoHtmlUrl(rootUrl, repository),
    meta: { id: repository.id, name: repository.name, owner: repository.ownerName, full_name: `${repository.ownerName}/${repository.name}` },
    label: onceEach(idOf, (label: Label) => toApiRepoLabel(label, rootUrl, repository)),
  };
}

/**
 * Issues of the given repositories (every issue's `repoId` must be in `repositories`) as Gitea's `Issue` list, in
 * the order given. A poster whose account is gone is Gitea's Ghost user; an assignee whose account is gone is left out.
 * Each user, label, milestone and repository is converted once for the whole list (the JSON shares the objects).
 */
export async function toApiIssues(
  services: ConvertWith<'users' | 'attachments'> & Pick<ConvertServices, 'publicUsers'>,
  viewer: Actor | undefined,
  issues: readonly Issue[],
  repositories: ReadonlyMap<number, Repository>,
  /** `false` when the caller shows no `assets` (Gitea's PullRequest has none): repos is not asked then. */
  withAssets = true,
): Promise<ApiIssue[]> {
  const rootUrl = services.config.server.rootUrl;
  const posterIds = issues.map((issue) => issue.posterId);
  const assigneeIds = issues.flatMap((issue) => issue.assigneeIds);
  const userView = { rootUrl };
  const shaped = (users: ReadonlyMap<number, User>) =>
    onceEach(itself, (id: number): ApiUser | undefined => {
      const user = users.get(id);
      return user === undefined ? undefined : toApiUser(user, userView);
    });
  // Anonymous callers get one call for both: the two shapings are the same then.
  const users =
    viewer === undefined
      ? usersById(services, [...posterIds, ...assigneeIds], undefined).then((found) => {
          const both = shaped(found);
          return [both, both] as const;
        })
      : Promise.all([usersById(services, posterIds, viewer), usersById(services, assigneeIds, undefined)]).then(
          ([posters, assignees]) => [shaped(posters), shaped(assignees)] as const,
        );
  const [assets, [poster, assignee]] = await Promise.all([
    attachmentsByParent(services, viewer, { issueIds: withAssets ? issues.map((issue) => issue.id) : [], commentIds: [] }),
    users,
  ]);
  let ghost: ApiUser | undefined;
  const view = onceEach(itself, (repoId: number): RepositoryView => {
    const repository = repositories.get(repoId);
    if (repository === undefined) throw new Error(`repository ${repoId} is missing`);
    return repositoryView(rootUrl, repository);
  });
  const milestone = onceEach(idOf, toApiMilestone);
  return issues.map((issue) => {
    const repository = view(issue.repoId);
    const apiAssignees = issue.assigneeIds.flatMap((id) => {
      const user = assignee(id);
      return user === undefined ? [] : [user];
    });
    // issueHtmlUrl and issueApiUrl, from the repository's addresses worked out once.
    const htmlUrl = `${repository.htmlUrl}/${issue.isPull ? 'pulls' : 'issues'}/${issue.index}`;
    return {
      id: issue.id,
      url: `${repository.apiUrl}/issues/${issue.index}`,
      html_url: htmlUrl,
      number: issue.index,
      user: poster(issue.posterId) ?? (ghost ??= ghostUser(rootUrl, viewer, services.config.service.noReplyAddress)),
      original_author: issue.originalAuthor,
      original_author_id: issue.originalAuthorId,
      title: issue.title,
      body: issue.body,
      ref: issue.ref,
      assets: assets.ofIssue(issue.id),
      labels: issue.labels.map(repository.label),
      milestone: issue.milestone === undefined ? null : milestone(issue.milestone),
      assignee: apiAssignees[0] ?? null,
      assignees: apiAssignees.length === 0 ? null : apiAssignees,
      state: issue.isClosed ? 'closed' : 'open',
      is_locked: issue.isLocked,
      comments: issue.numComments,
      created_at: goTime(issue.created),
      updated_at: goTime(issue.updated),
      closed_at: issue.closedAt === undefined ? null : goTime(issue.closedAt),
      due_date: issue.deadline === undefined ? null : goTime(issue.deadline),
      time_estimate: issue.timeEstimate,
      pull_request: issue.isPull
        ? { merged: issue.pullMergedAt !== undefined, merged_at: issue.pullMergedAt === undefined ? null : goTime(issue.pullMergedAt), draft: isWorkInProgress(issue.title), html_url: htmlUrl }
        : null,
      repository: repository.meta,
      pin_order: issue.pinOrder,
      content_version: issue.contentVersion,
    };
  });
}

/** One issue of one repository. */
export async function toApiIssue(
  services: ConvertWith<'users' | 'attachments'> & Pick<ConvertServices, 'publicUsers'>,
  viewer: Actor | undefined,
  issue: Issue,
  repository: Repository,
): Promise<ApiIssue> {
  const [converted] = await toApiIssues(services, viewer, [issue], new Map([[repository.id, repository]]));
  if (converted === undefined) throw new Error('issue conversion answered nothing');
  return converted;
}
