/**
 * The github source (Gitea's services/migrations/github.go, GithubDownloaderV3) without an SDK: GitHub's REST API v3
 * at https://api.github.com for github.com and `<scheme>://<host>/api/v3` for any other host (GitHub Enterprise), every
 * request through the outbound guard with the `[migrations]` policy (createSourceClient: rate limits waited out —
 * `Retry-After`, `X-RateLimit-Remaining: 0` until `X-RateLimit-Reset`, also after a successful answer that used the
 * quota up, as Gitea's waitAndPickClient). Lists are paged by `page`/`per_page` (at most 100) and end where the `Link`
 * header has no `rel="next"`.
 */
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { Comment, Downloader, Issue, Label, MigrationRepository, Milestone, Page, PullRequest, PullRequestBranch, Reaction, Release, Review, ReviewComment } from './base';
import type { DownloaderOptions } from './downloaders';
import { ITEM_REQUESTS_AT_ONCE, mapLimit } from './map-limit';
import { MigrationSourceError, type RequestOptions, createSourceClient, header, readLimited, unlessMissing } from './source-http';
import * as api from './github-api';
import { derivedReviewId } from './review-ids';

/** GitHub's page maximum (Gitea's maxPerPage). */
const MAX_PER_PAGE = 100;
/** A patch larger than this is refused (Gitea reads it whole). */
const MAX_PATCH_BYTES = 64 << 20;
/** GitHub's v3 media type (Gitea's go-github sends it with every request). */
const ACCEPT_V3 = 'application/vnd.github.v3+json';
/** The topics endpoint answered under the mercy preview. */
const ACCEPT_TOPICS = 'application/vnd.github.mercy-preview+json';

type Query = Record<string, string | number>;

/** API base URL and owner/repo from a clone address (Gitea's GithubDownloaderV3Factory.New and addClient). */
export function parseGithubCloneAddr(cloneAddr: string): { apiUrl: string; owner: string; repo: string } {
  const url = new URL(cloneAddr);
  const names = url.pathname.split('/').filter((part) => part !== '');
  if (names.length < 2) throw new Error(`invalid path: ${names.join('/')}`);
  const owner = decodeURIComponent(names[0]);
  const repo = decodeURIComponent(names[1].replace(/\.git$/, ''));
  const origin = `${url.protocol}//${url.host}`;
  return { apiUrl: origin === 'https://github.com' ? 'https://api.github.com' : `${origin}/api/v3`, owner, repo };
}

export async function createGithubDownloader(options: DownloaderOptions): Promise<Downloader> {
  const { apiUrl, owner, repo } = parseGithubCloneAddr(options.cloneAddr);
  const headers: Record<string, string> = { accept: ACCEPT_V3 };
  // A token is preferred (Gitea's NewGithubDownloaderV3 sends it through oauth2, as a Bearer token); basic auth
  // otherwise. Gitea rotates between comma-separated tokens; Cairn uses the first.
  const token = options.auth.token.split(',')[0].trim();
  if (token !== '') headers.authorization = `Bearer ${token}`;
  else if (options.auth.username !== '') {
    headers.authorization = `Basic ${Buffer.from(`${options.auth.username}:${options.auth.password}`).toString('base64')}`;
  }
  const repoPath = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
  const client = createSourceClient({ policy: options.policy, headers, resolver: options.resolver, timeoutMs: options.timeoutMs });

  async function read<S extends z.ZodTypeAny>(schema: S, path: string, query: Query = {}, requestOptions?: RequestOptions) {
    const search = new URLSearchParams(Object.entries(query).map(([key, value]): [string, string] => [key, String(value)])).toString();
    const { json, headers: answered } = await client.getJson(`${apiUrl}${path}${search === '' ? '' : `?${search}`}`, `GET ${path}`, requestOptions);
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new MigrationSourceError(200, `GET ${path}: unexpected answer (${parsed.error.issues[0]?.path.join('.') ?? ''})`);
    return { data: parsed.data as z.output<S>, headers: answered };
  }

  /** One page of a list: it ends where `Link` names no next page (without a `Link`, at a short page). */
  async function page<S extends z.ZodTypeAny>(item: S, path: string, query: Query, number: number, perPage: number): Promise<Page<z.output<S>>> {
    const { data, headers: answered } = await read(api.listOf(item), path, { ...query, per_page: perPage, page: number });
    const items = data as z.output<S>[];
    const link = header(answered, 'link');
    const isEnd = items.length === 0 || (link !== undefined ? !/rel="next"/.test(link) : items.length < perPage);
    return { items, isEnd };
  }

  /** Every page of a list (milestones, labels, releases, comments, reactions, reviews). */
  async function all<S extends z.ZodTypeAny>(item: S, path: string, query: Query = {}): Promise<z.output<S>[]> {
    const found: z.output<S>[] = [];
    for (let number = 1; ; number++) {
      const { items, isEnd } = await page(item, path, query, number, MAX_PER_PAGE);
      found.push(...items);
      if (isEnd) return found;
    }
  }

  /** An item's reactions; none asked for when its roll-up counts none (GitHub's `reactions.total_count`). */
  async function reactions(path: string, total: number | undefined): Promise<Reaction[]> {
    if (total === 0) return [];
    const list = await all(api.apiReaction, path);
    return list.map((reaction) => ({ userId: reaction.user.id, userName: reaction.user.login, content: reaction.content }));
  }
  /** Each item's reactions, a few requests at once rather than Gitea's one after another, in the items' order. */
  const reactionsOf = <T>(items: readonly T[], path: (item: T) => string, total: (item: T) => number | undefined): Promise<Reaction[][]> =>
    mapLimit(items, ITEM_REQUESTS_AT_ONCE, (item) => reactions(path(item), total(item)));

  // GitHub labels have no exclusive scope.
  const label = (value: z.output<typeof api.apiLabel>): Label => ({ name: value.name, color: value.color.replace(/^#/, ''), description: value.description, exclusive: false });
  const state = (value: string): 'open' | 'closed' => (value === 'closed' ? 'closed' : 'open');
  const poster = (user: z.output<typeof api.apiUser>) => ({ posterId: user.id, posterName: user.login, posterEmail: user.email });
  const epoch = new Date(0);
  const branchOf = (value: z.output<typeof api.apiPullRequest>['head'], cloneUrl: string): PullRequestBranch => ({
    cloneUrl,
    ref: value.ref,
    sha: value.sha,
    repoName: value.repo?.name ?? '',
    ownerName: value.user.login,
  });

  async function reviewComments(pullNumber: number, reviewId: number): Promise<ReviewComment[]> {
    const list = await all(api.apiReviewComment, `${repoPath}/pulls/${pullNumber}/reviews/${reviewId}/comments`);
    const reacted = await reactionsOf(
      list,
      (comment) => `${repoPath}/pulls/comments/${comment.id}/reactions`,
      (comment) => comment.reactions,
    );
    return list.map((comment, at): ReviewComment => {
      // A comment on the old side of the diff has a negative line, as Gitea's own downloader gives it.
      const line = comment.line ?? comment.original_line ?? 0;
      return {
        id: comment.id,
        inReplyTo: comment.in_reply_to_id,
        content: comment.body,
        treePath: comment.path,
        diffHunk: comment.diff_hunk,
        position: comment.position ?? comment.original_position ?? 0,
        line: comment.side === 'LEFT' ? -line : line,
        commitId: comment.commit_id,
        posterId: comment.user.id,
        reactions: reacted[at],
        createdAt: comment.created_at ?? epoch,
        updatedAt: comment.updated_at ?? comment.created_at ?? epoch,
      };
    });
  }

  return {
    async getRepoInfo(): Promise<MigrationRepository> {
      const { data: info } = await read(api.apiRepository, repoPath);
      return {
        name: info.name,
        // Gitea keeps the owner of the address asked for.
        owner,
        isPrivate: info.private,
        isMirror: false,
        description: info.description,
        cloneUrl: info.clone_url,
        originalUrl: info.html_url,
        defaultBranch: info.default_branch,
      };
    },

    async getTopics(): Promise<string[]> {
      return (await read(api.apiTopics, `${repoPath}/topics`, {}, { headers: { accept: ACCEPT_TOPICS } })).data.names;
    },

    async getMilestones(): Promise<Milestone[]> {
      const list = await all(api.apiMilestone, `${repoPath}/milestones`, { state: 'all' });
      return list.map((milestone) => ({
        title: milestone.title,
        description: milestone.description,
        deadline: milestone.due_on,
        created: milestone.created_at ?? epoch,
        updated: milestone.updated_at,
        closed: milestone.closed_at,
        state: state(milestone.state),
      }));
    },

    async getLabels(): Promise<Label[]> {
      return (await all(api.apiLabel, `${repoPath}/labels`)).map(label);
    },

    async getReleases(): Promise<Release[]> {
      const list = await all(api.apiRelease, `${repoPath}/releases`);
      return list.map((release) => ({
        tagName: release.tag_name,
        // GitHub takes a branch reference as the target; Gitea keeps the branch name (convertGithubRelease).
        targetCommitish: release.target_commitish.replace(/^refs\/heads\//, ''),
        name: release.name,
        body: release.body,
        draft: release.draft,
        prerelease: release.prerelease,
        publisherId: release.author.id,
        publisherName: release.author.login,
        publisherEmail: release.author.email,
        assets: release.assets.map((asset) => ({
          id: asset.id,
          name: asset.name,
          contentType: asset.content_type === '' ? undefined : asset.content_type,
          size: asset.size,
          downloadCount: asset.download_count,
          created: asset.created_at ?? epoch,
          updated: asset.updated_at ?? asset.created_at ?? epoch,
          downloadUrl: asset.browser_download_url,
        })),
        created: release.created_at ?? epoch,
        // A draft is not published: its creation stands in.
        published: release.published_at ?? release.created_at ?? epoch,
      }));
    },

    async getIssues(number: number, perPage: number): Promise<Page<Issue>> {
      const limit = Math.min(Math.max(perPage, 1), MAX_PER_PAGE);
      const found = await page(api.apiIssue, `${repoPath}/issues`, { state: 'all', sort: 'created', direction: 'asc' }, number, limit);
      // GitHub lists pull requests among issues (Gitea's IsPullRequest check): they come with getPullRequests.
      const listed = found.items.filter((issue) => issue.pull_request === null || issue.pull_request === undefined);
      const reacted = await reactionsOf(
        listed,
        (issue) => `${repoPath}/issues/${issue.number}/reactions`,
        (issue) => issue.reactions,
      );
      const issues = listed.map(
        (issue, at): Issue => ({
          number: issue.number,
          ...poster(issue.user),
          title: issue.title,
          content: issue.body,
          ref: '',
          milestone: issue.milestone,
          state: state(issue.state),
          isLocked: issue.locked,
          created: issue.created_at ?? epoch,
          updated: issue.updated_at ?? issue.created_at ?? epoch,
          closed: issue.closed_at,
          labels: issue.labels.map(label),
          reactions: reacted[at],
          assignees: issue.assignees.map((user) => user.login),
          foreignIndex: issue.number,
        }),
      );
      return { items: issues, isEnd: found.isEnd };
    },

    // Gitea reads every comment of the repository at once when it can (SupportGetRepoComments); the driver asks per
    // issue, so this is GitHub's per-issue listing.
    async getComments(issueNumber: number): Promise<Comment[]> {
      const list = await all(api.apiComment, `${repoPath}/issues/${issueNumber}/comments`, { sort: 'created', direction: 'asc' });
      const reacted = await reactionsOf(
        list,
        (comment) => `${repoPath}/issues/comments/${comment.id}/reactions`,
        (comment) => comment.reactions,
      );
      return list.map(
        (comment, at): Comment => ({
          issueIndex: issueNumber,
          index: comment.id,
          commentType: '',
          ...poster(comment.user),
          created: comment.created_at ?? epoch,
          updated: comment.updated_at ?? comment.created_at ?? epoch,
          content: comment.body,
          reactions: reacted[at],
        }),
      );
    },

    async getPullRequests(number: number, perPage: number): Promise<Page<PullRequest>> {
      const limit = Math.min(Math.max(perPage, 1), MAX_PER_PAGE);
      const found = await page(api.apiPullRequest, `${repoPath}/pulls`, { state: 'all', sort: 'created', direction: 'asc' }, number, limit);
      // The pull request list has no reaction counts: each is asked.
      const reacted = await reactionsOf(
        found.items,
        (pull) => `${repoPath}/issues/${pull.number}/reactions`,
        () => undefined,
      );
      const pulls = found.items.map(
        (pull, at): PullRequest => ({
          number: pull.number,
          title: pull.title,
          ...poster(pull.user),
          content: pull.body,
          milestone: pull.milestone,
          state: state(pull.state),
          created: pull.created_at ?? epoch,
          updated: pull.updated_at ?? pull.created_at ?? epoch,
          closed: pull.closed_at,
          labels: pull.labels.map(label),
          // GitHub's patch_url is `<html_url>.patch`, on the web host rather than the API's.
          patchUrl: pull.patch_url !== '' ? pull.patch_url : pull.html_url === '' ? '' : `${pull.html_url}.patch`,
          // The list answer has no `merged`: a merge time says it (Gitea's convertGithubPullRequest).
          merged: pull.merged_at !== undefined,
          mergedTime: pull.merged_at,
          mergeCommitSha: pull.merge_commit_sha,
          // The head's clone URL is its fork's (gone with the fork); the base is this repository (Gitea leaves its URL empty).
          head: branchOf(pull.head, pull.head.repo?.clone_url ?? ''),
          base: branchOf(pull.base, ''),
          assignees: pull.assignees.map((user) => user.login),
          isLocked: pull.locked || (pull.active_lock_reason !== null && pull.active_lock_reason !== undefined),
          reactions: reacted[at],
          foreignIndex: pull.number,
          isDraft: pull.draft,
        }),
      );
      return { items: pulls, isEnd: found.isEnd };
    },

    async getReviews(pullNumber: number): Promise<Review[]> {
      const reviews: Review[] = [];
      for (const review of await all(api.apiReview, `${repoPath}/pulls/${pullNumber}/reviews`)) {
        reviews.push({
          id: review.id,
          issueIndex: pullNumber,
          reviewerId: review.user.id,
          reviewerName: review.user.login,
          official: false,
          commitId: review.commit_id,
          content: review.body,
          createdAt: review.submitted_at ?? epoch,
          // GitHub's states are Gitea's migration states (convertGithubReview passes them on): PENDING, APPROVED,
          // CHANGES_REQUESTED, COMMENTED; DISMISSED too, which Gitea's uploader (convertReviewState's default) takes
          // as a pending review — and pending reviews are not imported here.
          state: review.state,
          comments: await reviewComments(pullNumber, review.id),
        });
      }
      // Requested reviewers who have not answered yet (teams are not users: Gitea skips them too). GitHub gives such a
      // request no id: one is derived from the pull request and the user (review-ids.ts), the same at every read.
      const { data: requested } = await read(api.apiRequestedReviewers, `${repoPath}/pulls/${pullNumber}/requested_reviewers`);
      for (const user of requested.users) {
        reviews.push({
          id: derivedReviewId(pullNumber, user.id),
          issueIndex: pullNumber,
          reviewerId: user.id,
          reviewerName: user.login,
          official: false,
          commitId: '',
          content: '',
          createdAt: epoch,
          state: 'REQUEST_REVIEW',
          comments: [],
        });
      }
      return reviews;
    },

    /**
     * Through the API's asset URL with `Accept: application/octet-stream` (Gitea's DownloadFunc): GitHub redirects to
     * its object store, where the token is not sent (the outbound guard drops credentials on another host).
     */
    openReleaseAsset(asset): Promise<Readable> {
      return client.open(`${apiUrl}${repoPath}/releases/assets/${asset.id}`, `release asset ${asset.name}`, { headers: { accept: 'application/octet-stream' } });
    },

    async getPullPatch(pull: PullRequest): Promise<Buffer | undefined> {
      if (pull.patchUrl === '') return undefined;
      const what = `the patch of pull request #${pull.number}`;
      // A pull request whose head is gone may have no patch: 404 is none (Gitea's uploader then keeps no patch).
      return unlessMissing(async () => readLimited(await client.open(pull.patchUrl, what, { headers: { accept: 'text/plain' } }), MAX_PATCH_BYTES, what));
    },
  };
}
