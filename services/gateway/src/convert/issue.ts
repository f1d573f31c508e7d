/**
 * issues' Issue → Gitea's `Issue` JSON (services/convert/issue.go `toIssue`). Users arrive in batches for the whole
 * list: the posters shaped for the viewer (`ToUser(ctx, issue.Poster, doer)`), the assignees shaped for an anonymous
 * caller as Gitea does (`ToUser(ctx, assignee, nil)`), so one accounts call per shaping, never one per row.
 */
import { goTime } from '@cairn/http';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { GatewayServices } from '../api/types';
import { ghostUser } from './ghost-user';
import { type ApiLabel, toApiRepoLabel } from './label';
import { type ApiMilestone, toApiMilestone } from './milestone';
import { repoApiUrl, repoHtmlUrl } from './repository';
import { type ApiUser, toApiUser } from './user';

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

/** Gitea's `Attachment`; issues carry none until attachments arrive (Gitea sends `[]`). */
export interface ApiAttachment {
  id: number;
  name: string;
  size: number;
  download_count: number;
  created_at: string;
  uuid: string;
  browser_download_url: string;
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

async function usersById(services: GatewayServices, ids: readonly number[], viewer: Actor | undefined): Promise<Map<number, User>> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  if (wanted.length === 0) return new Map();
  const { users } = await services.clients.users.batchGetUsers({ ids: wanted, viewer });
  return new Map(users.map((user) => [user.id, user]));
}

/**
 * Issues of the given repositories (every issue's `repoId` must be in `repositories`) as Gitea's `Issue` list, in
 * the order given. A poster whose account is gone is Gitea's Ghost user; an assignee whose account is gone is left out.
 */
export async function toApiIssues(
  services: GatewayServices,
  viewer: Actor | undefined,
  issues: readonly Issue[],
  repositories: ReadonlyMap<number, Repository>,
): Promise<ApiIssue[]> {
  const rootUrl = services.config.server.rootUrl;
  const posterIds = issues.map((issue) => issue.posterId);
  const assigneeIds = issues.flatMap((issue) => issue.assigneeIds);
  // Anonymous callers get one call for both: the two shapings are the same then.
  const [posters, assignees] =
    viewer === undefined
      ? await usersById(services, [...posterIds, ...assigneeIds], undefined).then((users) => [users, users] as const)
      : await Promise.all([usersById(services, posterIds, viewer), usersById(services, assigneeIds, undefined)]);
  const userView = { rootUrl };
  return issues.map((issue) => {
    const repository = repositories.get(issue.repoId);
    if (repository === undefined) throw new Error(`repository ${issue.repoId} of issue ${issue.id} is missing`);
    const poster = posters.get(issue.posterId);
    const apiAssignees = issue.assigneeIds.flatMap((id) => {
      const user = assignees.get(id);
      return user === undefined ? [] : [toApiUser(user, userView)];
    });
    const labels = issue.labels.map((label) => toApiRepoLabel(label, rootUrl, repository));
    const htmlUrl = issueHtmlUrl(rootUrl, repository, issue);
    return {
      id: issue.id,
      url: issueApiUrl(rootUrl, repository, issue),
      html_url: htmlUrl,
      number: issue.index,
      user: poster === undefined ? ghostUser(rootUrl, viewer, services.config.service.noReplyAddress) : toApiUser(poster, userView),
      original_author: issue.originalAuthor,
      original_author_id: issue.originalAuthorId,
      title: issue.title,
      body: issue.body,
      ref: issue.ref,
      assets: [],
      labels,
      milestone: issue.milestone === undefined ? null : toApiMilestone(issue.milestone),
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
      // Pull requests' merge state arrives with the pull-request area; until then no pull request is merged.
      pull_request: issue.isPull ? { merged: false, merged_at: null, draft: false, html_url: htmlUrl } : null,
      repository: {
        id: repository.id,
        name: repository.name,
        owner: repository.ownerName,
        full_name: `${repository.ownerName}/${repository.name}`,
      },
      pin_order: issue.pinOrder,
      content_version: issue.contentVersion,
    };
  });
}

/** One issue of one repository. */
export async function toApiIssue(
  services: GatewayServices,
  viewer: Actor | undefined,
  issue: Issue,
  repository: Repository,
): Promise<ApiIssue> {
  const [converted] = await toApiIssues(services, viewer, [issue], new Map([[repository.id, repository]]));
  if (converted === undefined) throw new Error('issue conversion answered nothing');
  return converted;
}
