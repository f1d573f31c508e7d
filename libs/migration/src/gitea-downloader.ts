/**
 * The gitea source (Gitea's services/migrations/gitea_downloader.go), which also reads Cairn and gogs (Gitea's
 * gogs.go): Gitea's API v1, every request through the outbound guard with the `[migrations]` policy. A source without
 * `GET /version` is taken for gogs: its lists are not paged by `limit`, its issues are listed open then closed, and
 * what it lacks (topics, reactions, releases, pull requests, reviews) is an empty answer, as Gitea's gogs downloader
 * skips them.
 */
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { Comment, Downloader, Issue, Label, MigrationRepository, Milestone, Page, PullRequest, Reaction, Release, ReleaseAsset, RepoComment, Review } from './base';
import type { DownloaderOptions } from './downloaders';
import { ITEM_REQUESTS_AT_ONCE, mapLimit } from './map-limit';
import { MigrationSourceError, type SourceAnswer, createSourceClient, header, readLimited } from './source-http';
import * as api from './gitea-api';

/** Gitea's options are every downloader's. */
export type GiteaDownloaderOptions = DownloaderOptions;

/** Gitea's downloader guesses 10 per page when the source does not say its maximum (< 1.13, gogs). */
const GUESSED_MAX_PER_PAGE = 10;
/** A patch larger than this is refused (Gitea reads it whole). */
const MAX_PATCH_BYTES = 64 << 20;

type Query = Record<string, string | number>;

/** Base URL and owner/repo from a clone address; a root URL with a sub-path keeps it (Gitea's factory New). */
export function parseCloneAddr(cloneAddr: string): { baseUrl: string; owner: string; repo: string } {
  const url = new URL(cloneAddr);
  const names = url.pathname
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/, '')
    .split('/')
    .filter((part) => part !== '');
  if (names.length < 2) throw new Error(`invalid path: ${names.join('/')}`);
  const sub = names.slice(0, -2).map((part) => `/${part}`).join('');
  return { baseUrl: `${url.protocol}//${url.host}${sub}`, owner: decodeURIComponent(names[names.length - 2]), repo: decodeURIComponent(names[names.length - 1]) };
}

/** Gitea's version as [major, minor]; a build suffix (`1.26.3+cairn-0.1.0`) is ignored. */
function versionOf(version: string): [number, number] {
  const match = /^v?(\d+)\.(\d+)/.exec(version);
  return match === null ? [0, 0] : [Number(match[1]), Number(match[2])];
}

const atLeast = (version: [number, number], major: number, minor: number): boolean => version[0] > major || (version[0] === major && version[1] >= minor);

export async function createGiteaDownloader(options: GiteaDownloaderOptions): Promise<Downloader> {
  const { baseUrl, owner, repo } = parseCloneAddr(options.cloneAddr);
  const headers: Record<string, string> = { accept: 'application/json' };
  // A token is preferred (Gitea's NewGiteaDownloader); basic auth otherwise.
  if (options.auth.token !== '') headers.authorization = `token ${options.auth.token}`;
  else if (options.auth.username !== '') {
    headers.authorization = `Basic ${Buffer.from(`${options.auth.username}:${options.auth.password}`).toString('base64')}`;
  }
  const repoPath = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;

  const client = createSourceClient({ policy: options.policy, headers, resolver: options.resolver, timeoutMs: options.timeoutMs });

  function get(path: string, query: Query = {}): Promise<SourceAnswer> {
    const search = new URLSearchParams(Object.entries(query).map(([key, value]): [string, string] => [key, String(value)])).toString();
    return client.getJson(`${baseUrl}/api/v1${path}${search === '' ? '' : `?${search}`}`, `GET ${path}`);
  }

  async function read<S extends z.ZodTypeAny>(schema: S, path: string, query?: Query): Promise<z.output<S>> {
    const { json } = await get(path, query);
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new MigrationSourceError(200, `GET ${path}: unexpected answer (${parsed.error.issues[0]?.path.join('.') ?? ''})`);
    return parsed.data as z.output<S>;
  }

  /** What a source without an endpoint (gogs, an older Gitea, a unit switched off) answers: 404 means none. */
  async function optional<T>(fallback: T, load: () => Promise<T>): Promise<T> {
    try {
      return await load();
    } catch (error) {
      if (error instanceof MigrationSourceError && error.status === 404) return fallback;
      throw error;
    }
  }

  // Gitea's SDK asks the version first; pagination came with 1.12, reactions with 1.11, reviews with 1.12.
  const version = await optional(undefined, async () => versionOf((await read(api.apiVersion, '/version')).version));
  const gogs = version === undefined;
  const paging = version !== undefined && atLeast(version, 1, 12);
  const reactionsKnown = version !== undefined && atLeast(version, 1, 11);
  // Gitea >= 1.13 says its page maximum; otherwise guess small, as Gitea does.
  const maxPerPage = paging
    ? await optional(GUESSED_MAX_PER_PAGE, async () => (await read(api.apiSettings, '/settings/api')).max_response_items || GUESSED_MAX_PER_PAGE)
    : GUESSED_MAX_PER_PAGE;

  /** One page of a list: its end from X-Total-Count, else Link, else a short page (Gitea's isEnd). */
  async function page<S extends z.ZodTypeAny>(item: S, path: string, query: Query, number: number, limit: number): Promise<Page<z.output<S>>> {
    const { json, headers: answered } = await get(path, { ...query, page: number, limit });
    const parsed = api.listOf(item).safeParse(json);
    if (!parsed.success) throw new MigrationSourceError(200, `GET ${path}: unexpected answer (${parsed.error.issues[0]?.path.join('.') ?? ''})`);
    const items = parsed.data as z.output<S>[];
    if (!paging) return { items, isEnd: items.length === 0 };
    const total = Number(header(answered, 'x-total-count'));
    const link = header(answered, 'link');
    const isEnd =
      items.length === 0 ||
      (header(answered, 'x-total-count') !== undefined && Number.isFinite(total)
        ? (number - 1) * limit + items.length >= total
        : link !== undefined
          ? !/rel="next"/.test(link)
          : items.length < limit);
    return { items, isEnd };
  }

  /** Every page of a list (milestones, labels, releases, comments, reviews); gogs answers them whole. */
  async function all<S extends z.ZodTypeAny>(item: S, path: string, query: Query = {}): Promise<z.output<S>[]> {
    if (!paging) return (await read(api.listOf(item), path, query)) as z.output<S>[];
    const found: z.output<S>[] = [];
    for (let number = 1; ; number++) {
      const { items, isEnd } = await page(item, path, query, number, maxPerPage);
      found.push(...items);
      if (isEnd) return found;
    }
  }

  /** Reactions have no list of their own: a request per item (Gitea's getIssueReactions, getCommentReactions). */
  async function reactions(path: string): Promise<Reaction[]> {
    if (!reactionsKnown) return [];
    const list = await optional([], () => read(api.listOf(api.apiReaction), path));
    return list.map((reaction) => ({ userId: reaction.user.id, userName: reaction.user.login, content: reaction.content }));
  }

  const label = (value: z.output<typeof api.apiLabel>): Label => ({
    name: value.name,
    color: value.color.replace(/^#/, ''),
    description: value.description,
    exclusive: value.exclusive,
  });
  const state = (value: string): 'open' | 'closed' => (value === 'closed' ? 'closed' : 'open');
  /** The poster, or the original author a source kept for an item it migrated itself (e-mail unknown then). */
  const poster = (item: { user: { id: number; login: string; email: string }; original_author: string; original_author_id: number }) =>
    item.original_author !== ''
      ? { posterId: item.original_author_id, posterName: item.original_author, posterEmail: '' }
      : { posterId: item.user.id, posterName: item.user.login, posterEmail: item.user.email };
  const epoch = new Date(0);

  /** gogs lists open issues, then closed ones (Gitea's gogs.go): pages past the open ones are closed pages. */
  let openPages: number | undefined;
  async function gogsIssues(number: number): Promise<Page<z.output<typeof api.apiIssue>>> {
    const list = (state: string, at: number) => page(api.apiIssue, `${repoPath}/issues`, { state }, at, maxPerPage);
    if (openPages === undefined) {
      let count = 0;
      while ((await list('open', count + 1)).items.length > 0) count++;
      openPages = count;
    }
    if (number <= openPages) return { items: (await list('open', number)).items, isEnd: false };
    return list('closed', number - openPages);
  }

  /** Each item's reactions, a few requests at once rather than Gitea's one after another, in the items' order. */
  const reactionsOf = <T>(items: readonly T[], path: (item: T) => string): Promise<Reaction[][]> =>
    mapLimit(items, ITEM_REQUESTS_AT_ONCE, (item) => reactions(path(item)));

  function toComment(issueNumber: number, comment: z.output<typeof api.apiComment>, reacted: Reaction[]): Comment {
    return {
      issueIndex: issueNumber,
      index: comment.id,
      commentType: '',
      ...poster(comment),
      created: comment.created_at ?? epoch,
      updated: comment.updated_at ?? comment.created_at ?? epoch,
      content: comment.body,
      reactions: reacted,
    };
  }
  const commentReactions = (comments: readonly z.output<typeof api.apiComment>[]) => reactionsOf(comments, (comment) => `${repoPath}/issues/comments/${comment.id}/reactions`);

  /** The issue or pull request a listed comment is on, from its URL (`…/issues/7` or `…/pulls/7`; Gitea sets one). */
  function parentOf(comment: z.output<typeof api.apiRepoComment>): { number: number; onPullRequest: boolean } | undefined {
    const numbered = (url: string): number | undefined => {
      const match = /\/(\d+)\/?$/.exec(url);
      return match === null ? undefined : Number(match[1]);
    };
    const pull = comment.pull_request_url === '' ? undefined : numbered(comment.pull_request_url);
    if (pull !== undefined) return { number: pull, onPullRequest: true };
    const issue = comment.issue_url === '' ? undefined : numbered(comment.issue_url);
    return issue === undefined ? undefined : { number: issue, onPullRequest: false };
  }

  return {
    async getRepoInfo(): Promise<MigrationRepository> {
      const info = await read(api.apiRepository, repoPath);
      return {
        name: info.name,
        owner: info.owner.login,
        isPrivate: info.private,
        isMirror: info.mirror,
        description: info.description,
        cloneUrl: info.clone_url,
        originalUrl: info.html_url,
        defaultBranch: info.default_branch,
      };
    },

    async getTopics(): Promise<string[]> {
      return optional([], async () => (await read(api.apiTopics, `${repoPath}/topics`)).topics);
    },

    async getMilestones(): Promise<Milestone[]> {
      const list = await all(api.apiMilestone, `${repoPath}/milestones`, { state: 'all' });
      // Older sources have no created/updated: the closing time stands in (Gitea's GetMilestones).
      return list.map((milestone) => ({
        title: milestone.title,
        description: milestone.description,
        deadline: milestone.due_on,
        created: milestone.created_at ?? milestone.closed_at ?? epoch,
        updated: milestone.updated_at ?? milestone.closed_at,
        closed: milestone.closed_at,
        state: state(milestone.state),
      }));
    },

    async getLabels(): Promise<Label[]> {
      return (await all(api.apiLabel, `${repoPath}/labels`)).map(label);
    },

    async getReleases(): Promise<Release[]> {
      const list = await optional([], () => all(api.apiRelease, `${repoPath}/releases`));
      return list.map((release) => ({
        tagName: release.tag_name,
        targetCommitish: release.target_commitish,
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
          size: asset.size,
          downloadCount: asset.download_count,
          created: asset.created_at ?? epoch,
          updated: asset.created_at ?? epoch,
          downloadUrl: asset.browser_download_url,
        })),
        created: release.created_at ?? epoch,
        published: release.published_at ?? release.created_at ?? epoch,
      }));
    },

    async getIssues(number: number, perPage: number): Promise<Page<Issue>> {
      const limit = Math.min(perPage, maxPerPage);
      const found = gogs
        ? await gogsIssues(number)
        : await page(api.apiIssue, `${repoPath}/issues`, { state: 'all', type: 'issues' }, number, limit);
      const listed = found.items.filter((issue) => issue.pull_request === null || issue.pull_request === undefined);
      const reacted = await reactionsOf(listed, (issue) => `${repoPath}/issues/${issue.number}/reactions`);
      const issues = listed.map(
        (issue, at): Issue => ({
          number: issue.number,
          ...poster(issue),
          title: issue.title,
          content: issue.body,
          ref: issue.ref,
          milestone: issue.milestone,
          state: state(issue.state),
          isLocked: issue.is_locked,
          created: issue.created_at ?? epoch,
          updated: issue.updated_at ?? issue.created_at ?? epoch,
          // gogs gives no closing time: the last update stands in (Gitea's convertGogsIssue).
          closed: issue.closed_at ?? (gogs && issue.state === 'closed' ? issue.updated_at : undefined),
          labels: issue.labels.map(label),
          reactions: reacted[at],
          assignees: issue.assignees,
          foreignIndex: issue.number,
        }),
      );
      return { items: issues, isEnd: found.isEnd };
    },

    async getComments(issueNumber: number): Promise<Comment[]> {
      // gogs lists event records as comments without a body or poster (Gitea's gogs.go skips them).
      const list = (await all(api.apiComment, `${repoPath}/issues/${issueNumber}/comments`)).filter((comment) => !(gogs && (comment.body === '' || comment.user.id === 0)));
      const reacted = await commentReactions(list);
      return list.map((comment, at) => toComment(issueNumber, comment, reacted[at]));
    },

    // The repository's comment list (`GET /repos/{owner}/{repo}/issues/comments`, oldest first, paged since 1.12, as
    // Gitea's routers/api/v1/repo/issue_comment.go ListRepoIssueComments): one request per page instead of one per
    // issue. Each comment names its issue or pull request by URL. gogs and older sources keep the per-issue walk.
    ...(paging
      ? {
          async getAllComments(number: number, perPage: number): Promise<Page<RepoComment>> {
            const found = await page(api.apiRepoComment, `${repoPath}/issues/comments`, {}, number, Math.min(perPage, maxPerPage));
            const parents = found.items.map((comment) => {
              const parent = parentOf(comment);
              if (parent === undefined) throw new MigrationSourceError(200, `GET ${repoPath}/issues/comments: comment ${comment.id} names no issue or pull request`);
              return parent;
            });
            const reacted = await commentReactions(found.items);
            const comments = found.items.map((comment, at): RepoComment => ({ comment: toComment(parents[at].number, comment, reacted[at]), onPullRequest: parents[at].onPullRequest }));
            return { items: comments, isEnd: found.isEnd };
          },
        }
      : {}),

    async getPullRequests(number: number, perPage: number): Promise<Page<PullRequest>> {
      if (gogs) return { items: [], isEnd: true };
      const limit = Math.min(perPage, maxPerPage);
      const found = await optional({ items: [], isEnd: true }, () => page(api.apiPullRequest, `${repoPath}/pulls`, { state: 'all' }, number, limit));
      const reacted = await reactionsOf(found.items, (pull) => `${repoPath}/issues/${pull.number}/reactions`);
      const pulls = found.items.map(
        (pull, at): PullRequest => ({
          number: pull.number,
          title: pull.title,
          ...poster(pull),
          content: pull.body,
          milestone: pull.milestone,
          state: state(pull.state),
          created: pull.created_at ?? epoch,
          updated: pull.updated_at ?? pull.created_at ?? epoch,
          // A merged pull request is closed when it was merged (Gitea's GetPullRequests).
          closed: pull.closed_at ?? pull.merged_at,
          labels: pull.labels.map(label),
          patchUrl: pull.patch_url,
          merged: pull.merged,
          mergedTime: pull.merged_at,
          mergeCommitSha: pull.merge_commit_sha,
          head: {
            cloneUrl: pull.head.repo?.clone_url ?? '',
            ref: pull.head.ref,
            sha: pull.head.sha,
            repoName: pull.head.repo?.name ?? '',
            ownerName: pull.head.repo?.owner.login ?? '',
          },
          // Gitea's downloader: the base is this repository (its clone address as the API shows it).
          base: { cloneUrl: pull.base.repo?.clone_url ?? '', ref: pull.base.ref, sha: pull.base.sha, repoName: repo, ownerName: owner },
          assignees: pull.assignees,
          isLocked: pull.is_locked,
          reactions: reacted[at],
          foreignIndex: pull.number,
          isDraft: pull.draft,
          mergeBase: pull.merge_base,
        }),
      );
      return { items: pulls, isEnd: found.isEnd };
    },

    async getReviews(pullNumber: number): Promise<Review[]> {
      if (!paging) return [];
      const list = await optional([], () => all(api.apiReview, `${repoPath}/pulls/${pullNumber}/reviews`));
      const reviews: Review[] = [];
      for (const review of list) {
        // A team's review request has no reviewer: Gitea skips it rather than give it to the wrong user.
        if (review.user === null || review.user === undefined) continue;
        const comments = await read(api.listOf(api.apiReviewComment), `${repoPath}/pulls/${pullNumber}/reviews/${review.id}/comments`);
        reviews.push({
          id: review.id,
          issueIndex: pullNumber,
          reviewerId: review.user.id,
          reviewerName: review.user.login,
          official: review.official,
          commitId: review.commit_id,
          content: review.body,
          createdAt: review.submitted_at ?? epoch,
          state: review.state,
          comments: comments.map((comment) => ({
            id: comment.id,
            inReplyTo: 0,
            content: comment.body,
            treePath: comment.path,
            diffHunk: comment.diff_hunk,
            position: 0,
            // A comment on an old line has a negative line (Gitea's GetReviews).
            line: comment.original_position > 0 ? -comment.original_position : comment.position,
            commitId: comment.commit_id,
            posterId: comment.user.id,
            reactions: [],
            createdAt: comment.created_at ?? epoch,
            updatedAt: comment.updated_at ?? comment.created_at ?? epoch,
          })),
        });
      }
      return reviews;
    },

    openReleaseAsset(asset: ReleaseAsset): Promise<Readable> {
      if (asset.downloadUrl === undefined || asset.downloadUrl === '') throw new MigrationSourceError(404, `release asset ${asset.name} has no download URL`);
      return client.open(asset.downloadUrl, `release asset ${asset.name}`);
    },

    async getPullPatch(pull: PullRequest): Promise<Buffer | undefined> {
      const what = `the patch of pull request #${pull.number}`;
      // The API's patch first (repoDownloadPullDiffOrPatch, on the source's own address with its credentials, so a
      // private repository's too): Cairn serves no web pages, so its patch_url (a page) answers 404.
      const urls = [`${baseUrl}/api/v1${repoPath}/pulls/${pull.number}.patch`, ...(pull.patchUrl === '' ? [] : [pull.patchUrl])];
      for (const url of urls) {
        try {
          return await readLimited(await client.open(url, what), MAX_PATCH_BYTES, what);
        } catch (error) {
          // An older Gitea without the API route, a deleted head: the next address, else no patch.
          if (!(error instanceof MigrationSourceError && error.status === 404)) throw error;
        }
      }
      return undefined;
    },
  };
}
