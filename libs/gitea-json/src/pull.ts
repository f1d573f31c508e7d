/**
 * issues' PullRequest → Gitea's `PullRequest` JSON (services/convert/pull.go `ToAPIPullRequest` for one,
 * `ToAPIPullRequests` for a list). The issue half is the issue converter's (one accounts call per shaping for the
 * whole list); requested reviewers and mergers are shaped as Gitea does (`ToUser(ctx, user, nil)`), in one more
 * accounts call. Base and head repositories are converted together (one batch per kind of data); a fork the viewer
 * may not read is shown as `repo: null` rather than leaked.
 *
 * As in Gitea, only a single pull request carries the diff totals (`additions`, `deletions`, `changed_files`, from
 * one git-storage ListChangedFiles of merge base...head): a list leaves them out because the diff is slow. The base
 * `sha` is the base branch's head; the head `ref` is the head branch while it exists, else `refs/pull/<n>/head`;
 * the head `sha` is the branch's head for one pull request and the synced `refs/pull/<n>/head` in lists.
 * `review_comments` is Gitea's count of submitted reviews (approvals, change requests and comment reviews).
 */
import { goTime } from '@cairn/http';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Repository as GitRepository } from '@cairn/proto/cairn/git/v1/git_service';
import type { PullRequest, Review } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { Permission, Repository, RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code, isCairnError } from '@cairn/rpc';
import type { ConvertServices, ConvertWith } from './services';
import { gitRepositoryOf } from './git-repository';
import { ghostUser } from './ghost-user';
import type { ApiTeam } from './org';
import { type ApiIssue, isWorkInProgress, toApiIssues } from './issue';
import type { ApiLabel } from './label';
import type { ApiMilestone } from './milestone';
import { type ApiRepository, repoHtmlUrl, toApiRepositories } from './repository';
import { teamsById } from './review';
import { type ApiUser, toApiUser } from './user';

/** Statuses in which Gitea's `PullRequest.Mergeable` is false. */
const UNMERGEABLE_STATUSES = new Set(['checking', 'conflict', 'error']);

/** Review states Gitea writes a review comment for (what `review_comments` counts). */
const SUBMITTED_REVIEW_STATES = new Set(['APPROVED', 'REQUEST_CHANGES', 'COMMENT']);

/** Gitea's `PRBranchInfo`. */
export interface ApiPRBranchInfo {
  label: string;
  ref: string;
  sha: string;
  repo_id: number;
  repo: ApiRepository | null;
}

/** Gitea's `api.PullRequest`, keys in its order. */
export interface ApiPullRequest {
  id: number;
  url: string;
  number: number;
  user: ApiUser;
  title: string;
  body: string;
  labels: ApiLabel[];
  milestone: ApiMilestone | null;
  assignee: ApiUser | null;
  assignees: ApiUser[] | null;
  requested_reviewers: ApiUser[];
  requested_reviewers_teams: ApiTeam[];
  state: 'open' | 'closed';
  draft: boolean;
  is_locked: boolean;
  comments: number;
  review_comments: number;
  additions?: number;
  deletions?: number;
  changed_files?: number;
  html_url: string;
  diff_url: string;
  patch_url: string;
  mergeable: boolean;
  merged: boolean;
  merged_at: string | null;
  merge_commit_sha: string | null;
  merged_by: ApiUser | null;
  allow_maintainer_edit: boolean;
  base: ApiPRBranchInfo;
  head: ApiPRBranchInfo;
  merge_base: string;
  due_date: string | null;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  pin_order: number;
  content_version: number;
}

/** Gitea's `PullRequest.Mergeable`: not being checked, not conflicting, not failed, not a work in progress. */
export function isMergeable(pull: Pick<PullRequest, 'status'>, title: string): boolean {
  return !UNMERGEABLE_STATUSES.has(pull.status) && !isWorkInProgress(title);
}

/** `refs/pull/<index>/head`, where the base repository keeps a pull request's head. */
export function pullHeadRef(index: number): string {
  return `refs/pull/${index}/head`;
}

export interface PullConversion {
  /** One pull request (Gitea's ToAPIPullRequest): diff totals and the head branch's own head. */
  single: boolean;
}

function issueOf(pull: PullRequest) {
  if (pull.issue === undefined) throw new Error('the issues service answered a pull request without its issue');
  return pull.issue;
}

/** The branch's head commit, or undefined when it does not exist (anything else fails the answer). */
async function branchHead(services: ConvertWith<'refs'>, repository: GitRepository, name: string): Promise<string | undefined> {
  try {
    const { branch } = await services.clients.refs.getBranch({ repository, name });
    return branch?.commit?.sha;
  } catch (error) {
    if (isCairnError(error) && error.code === Code.NOT_FOUND) return undefined;
    throw error;
  }
}

/** `git diff --shortstat merge_base...head` as Gitea reports it; undefined when it cannot be worked out (Gitea logs and leaves it out). */
async function diffTotals(
  services: ConvertWith<'gitMerge'> & Pick<ConvertServices, 'logger'>,
  repository: GitRepository,
  base: string,
  head: string,
): Promise<{ additions: number; deletions: number; changed: number } | undefined> {
  if (base === '') return undefined;
  try {
    const answer = await services.clients.gitMerge.listChangedFiles({ repository, base, head, page: { page: 1, limit: 1 } });
    return { additions: answer.additions, deletions: answer.deletions, changed: answer.total };
  } catch (error) {
    if (!isCairnError(error)) throw error;
    services.logger.warn({ err: error, repoId: repository.repoId }, 'pull request diff totals failed');
    return undefined;
  }
}

/** How many reviews of the pull request were submitted (Gitea's review comments), paging through them all. */
export async function submittedReviewCount(services: ConvertWith<'reviews'>, scope: { viewer: Actor | undefined; base: RepositoryWithPermission }, index: number): Promise<number> {
  const limit = 50;
  let count = 0;
  for (let page = 1; ; page += 1) {
    const { reviews, total } = await services.clients.reviews.listReviews({
      scope: { viewer: scope.viewer, repository: scope.base },
      index,
      page: { page, limit },
    });
    count += reviews.filter((review: Review) => SUBMITTED_REVIEW_STATES.has(review.state)).length;
    if (reviews.length < limit || page * limit >= total) return count;
  }
}

async function usersById(services: ConvertWith<'users'>, ids: readonly number[]): Promise<Map<number, User>> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  if (wanted.length === 0) return new Map();
  // Gitea shapes reviewers and mergers as for an anonymous caller (`ToUser(ctx, user, nil)`).
  const { users } = await services.clients.users.batchGetUsers({ ids: wanted, viewer: undefined });
  return new Map(users.map((user) => [user.id, user]));
}

/**
 * Gitea's PullRequest for each of `pulls`, all of the `base` repository (the route's, with the viewer's permission),
 * in their order.
 */
export async function toApiPullRequests(
  services: ConvertServices,
  viewer: Actor | undefined,
  pulls: readonly PullRequest[],
  base: { repository: Repository; permission: Permission },
  conversion: PullConversion,
): Promise<ApiPullRequest[]> {
  if (pulls.length === 0) return [];
  const { config } = services;
  const rootUrl = config.server.rootUrl;
  const baseRepo = base.repository;
  const baseGit = gitRepositoryOf(baseRepo);
  const scope = { viewer, base: { repository: baseRepo, permission: base.permission } };

  // Forks the pull requests come from, as the viewer may read them (others are left out).
  const forkIds = [...new Set(pulls.map((pull) => pull.headRepoId).filter((id) => id > 0 && id !== baseRepo.id))];
  const forks =
    forkIds.length === 0 ? [] : (await services.clients.repos.batchGetRepositories({ viewer, ids: forkIds })).repositories;
  const readable: RepositoryWithPermission[] = [scope.base, ...forks];
  const headRepos = new Map<number, Repository>();
  for (const item of readable) if (item.repository !== undefined) headRepos.set(item.repository.id, item.repository);

  const baseBranches = [...new Set(pulls.map((pull) => pull.baseBranch))];
  const headBranchKeys = new Map<string, { repository: Repository; branch: string }>();
  for (const pull of pulls) {
    const repository = headRepos.get(pull.headRepoId);
    if (repository !== undefined) headBranchKeys.set(`${repository.id}:${pull.headBranch}`, { repository, branch: pull.headBranch });
  }

  const issues = pulls.map(issueOf);
  const [apiIssues, apiRepos, users, baseHeads, headHeads, reviewCounts, teams] = await Promise.all([
    toApiIssues(services, viewer, issues, new Map([[baseRepo.id, baseRepo]]), false),
    toApiRepositories(services, viewer, readable),
    usersById(services, pulls.flatMap((pull) => [...pull.requestedReviewerIds, ...(pull.hasMerged ? [pull.mergerId] : [])])),
    Promise.all(baseBranches.map(async (branch) => [branch, await branchHead(services, baseGit, branch)] as const)).then((entries) => new Map(entries)),
    Promise.all(
      [...headBranchKeys].map(async ([key, { repository, branch }]) => [key, await branchHead(services, gitRepositoryOf(repository), branch)] as const),
    ).then((entries) => new Map(entries)),
    Promise.all(pulls.map((pull) => submittedReviewCount(services, scope, issueOf(pull).index))),
    teamsById(services, viewer, pulls.flatMap((pull) => pull.requestedReviewerTeamIds)),
  ]);
  const apiRepoById = new Map(readable.map((item, position) => [item.repository?.id ?? 0, apiRepos[position]]));
  const userView = { rootUrl };
  const apiUser = (id: number): ApiUser | undefined => {
    const user = users.get(id);
    return user === undefined ? undefined : toApiUser(user, userView);
  };

  const htmlBase = repoHtmlUrl(rootUrl, baseRepo);
  return Promise.all(
    pulls.map(async (pull, position): Promise<ApiPullRequest> => {
      const issue = issues[position];
      const apiIssue: ApiIssue = apiIssues[position];
      const headRepo = headRepos.get(pull.headRepoId);
      const headBranchSha = headRepo === undefined ? undefined : headHeads.get(`${headRepo.id}:${pull.headBranch}`);
      const refName = pullHeadRef(issue.index);
      const headSha = conversion.single ? (headBranchSha ?? pull.headCommitId) : pull.headCommitId;
      const totals = conversion.single ? await diffTotals(services, baseGit, pull.mergeBase, headBranchSha ?? refName) : undefined;
      const html = `${htmlBase}/pulls/${issue.index}`;
      const merger = pull.hasMerged ? (apiUser(pull.mergerId) ?? ghostUser(rootUrl, undefined, config.service.noReplyAddress)) : null;
      return {
        id: pull.issue?.id ?? 0,
        url: html,
        number: issue.index,
        user: apiIssue.user,
        title: apiIssue.title,
        body: apiIssue.body,
        labels: apiIssue.labels,
        milestone: apiIssue.milestone,
        assignee: apiIssue.assignee,
        assignees: apiIssue.assignees,
        requested_reviewers: pull.requestedReviewerIds.flatMap((id) => apiUser(id) ?? []),
        requested_reviewers_teams: pull.requestedReviewerTeamIds.flatMap((id) => teams.get(id) ?? []),
        state: apiIssue.state,
        draft: isWorkInProgress(issue.title),
        is_locked: apiIssue.is_locked,
        comments: apiIssue.comments,
        review_comments: reviewCounts[position],
        ...(totals === undefined ? {} : { additions: totals.additions, deletions: totals.deletions, changed_files: totals.changed }),
        html_url: html,
        diff_url: `${html}.diff`,
        patch_url: `${html}.patch`,
        mergeable: isMergeable(pull, issue.title),
        merged: pull.hasMerged,
        merged_at: pull.hasMerged && pull.mergedAt !== undefined ? goTime(pull.mergedAt) : null,
        merge_commit_sha: pull.hasMerged ? pull.mergedCommitId : null,
        merged_by: merger,
        allow_maintainer_edit: pull.allowMaintainerEdit,
        base: {
          label: pull.baseBranch,
          ref: pull.baseBranch,
          sha: baseHeads.get(pull.baseBranch) ?? '',
          repo_id: baseRepo.id,
          repo: apiRepoById.get(baseRepo.id) ?? null,
        },
        head: {
          label: pull.headBranch,
          ref: headBranchSha === undefined ? refName : pull.headBranch,
          sha: headSha,
          // Gitea's -1: the head repository is gone.
          repo_id: pull.headRepoId > 0 ? pull.headRepoId : -1,
          repo: headRepo === undefined ? null : (apiRepoById.get(headRepo.id) ?? null),
        },
        merge_base: pull.mergeBase,
        due_date: apiIssue.due_date,
        created_at: apiIssue.created_at,
        updated_at: apiIssue.updated_at,
        closed_at: apiIssue.closed_at,
        pin_order: apiIssue.pin_order,
        content_version: apiIssue.content_version,
      };
    }),
  );
}

/** One pull request of the base repository, as Gitea's ToAPIPullRequest answers it. */
export async function toApiPullRequest(
  services: ConvertServices,
  viewer: Actor | undefined,
  pull: PullRequest,
  base: { repository: Repository; permission: Permission },
): Promise<ApiPullRequest> {
  const [converted] = await toApiPullRequests(services, viewer, [pull], base, { single: true });
  return converted;
}
