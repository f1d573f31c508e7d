/**
 * The gitlab source (Gitea's services/migrations/gitlab.go GitlabDownloader): GitLab's API v4 without an SDK, every
 * request through the outbound guard with the `[migrations]` policy (source-http). The project is addressed by its
 * URL-encoded path once, then by its id; lists are paged by `page`/`per_page` and end where `X-Next-Page` is empty.
 *
 * GitLab numbers issues and merge requests separately; Gitea shares one sequence, so a merge request's number is the
 * largest issue number plus its own (gitlab.go gitlabIIDResolver). What is private on GitLab stays behind:
 * confidential issues and internal notes are skipped (Forgejo's gitlab.go, which Gitea lacks).
 */
import type { Readable } from 'node:stream';
import { outboundRequest } from '@cairn/outbound';
import type { z } from 'zod';
import type { Comment, Downloader, Issue, Label, MigrationRepository, Milestone, Page, PullRequest, PullRequestBranch, Reaction, Release, ReleaseAsset, Review } from './base';
import type { DownloaderOptions } from './downloaders';
import { listOf } from './gitea-api';
import * as api from './gitlab-api';
import { ITEM_REQUESTS_AT_ONCE, mapLimit } from './map-limit';
import { derivedReviewId } from './review-ids';
import { MigrationSourceError, type SourceAnswer, createSourceClient, header, readLimited, sourceMessage, unlessMissing } from './source-http';

/** GitLab answers at most 100 items a page (gitlab.go maxPerPage). */
const MAX_PER_PAGE = 100;
/** A patch larger than this is refused (Gitea reads it whole). */
const MAX_PATCH_BYTES = 64 << 20;

type Query = Record<string, string | number>;

/**
 * GitLab's award emoji names with a Gitea reaction of the same meaning; other names are kept as GitLab's (Gitea's
 * awardsToReactions keeps every name as it is, so its copies show `thumbsup` where Gitea's own reactions say `+1`).
 */
const REACTIONS: Readonly<Record<string, string>> = {
  thumbsup: '+1',
  thumbsdown: '-1',
  laughing: 'laugh',
  smile: 'laugh',
  tada: 'hooray',
  confused: 'confused',
  heart: 'heart',
  rocket: 'rocket',
  eyes: 'eyes',
};

/** GitLab's colors as Gitea's label colors: 6 lower-case hex digits without '#' ("" if not one; gitlab.go normalizeColor). */
export function normalizeColor(color: string): string {
  let value = color.replace(/^#+/, '').toLowerCase();
  if (value.length === 3) value = [...value].map((digit) => digit + digit).join('');
  return /^[0-9a-f]{6}$/.test(value) ? value : '';
}

/** Awards as reactions, Gitea's names where there is one, each user's kind once (gitlab.go awardsToReactions). */
export function awardsToReactions(awards: readonly z.output<typeof api.glAward>[]): Reaction[] {
  const seen = new Set<string>();
  const reactions: Reaction[] = [];
  for (const award of awards) {
    const content = REACTIONS[award.name] ?? award.name;
    const key = `${content}\u0000${award.user.id}`;
    if (content === '' || seen.has(key)) continue;
    seen.add(key);
    reactions.push({ userId: award.user.id, userName: award.user.username, content });
  }
  return reactions;
}

const TARGET_BRANCH_PREFIX = 'changed target branch from `';
const TARGET_BRANCH_SEPARATOR = '` to `';

/**
 * Gitea's `^changed target branch from `(.*?)` to `(.*?)`$` (gitlab.go, RE2: linear), read without a backtracking
 * regular expression, which a long note of the source could make quadratic: one line, the prefix, the first
 * separator, a closing backtick.
 */
export function targetBranchChange(body: string): { from: string; to: string } | undefined {
  if (!body.startsWith(TARGET_BRANCH_PREFIX) || !body.endsWith('`') || /[\n\r\u2028\u2029]/.test(body)) return undefined;
  const inner = body.slice(TARGET_BRANCH_PREFIX.length, -1);
  const at = inner.indexOf(TARGET_BRANCH_SEPARATOR);
  return at < 0 ? undefined : { from: inner.slice(0, at), to: inner.slice(at + TARGET_BRANCH_SEPARATOR.length) };
}

/** A note as a comment; a system note's event is recognized where Gitea has a comment type for it (gitlab.go convertNoteToComment). */
function noteToComment(issueIndex: number, note: z.output<typeof api.glNote>): Comment {
  const comment: Comment = {
    issueIndex,
    index: note.id,
    commentType: '',
    posterId: note.author.id,
    posterName: note.author.username,
    posterEmail: note.author.email,
    created: note.created_at ?? new Date(0),
    updated: note.updated_at ?? note.created_at ?? new Date(0),
    content: note.body,
    reactions: [],
  };
  if (note.system) {
    const target = targetBranchChange(note.body);
    if (target !== undefined) return { ...comment, commentType: 'change_target_branch', meta: { OldRef: target.from, NewRef: target.to } };
    if (note.body.startsWith('enabled an automatic merge')) return { ...comment, commentType: 'pull_scheduled_merge' };
    if (note.body === 'canceled the automatic merge') return { ...comment, commentType: 'pull_cancel_scheduled_merge' };
  }
  return comment;
}

/** Gitea's comment types for GitLab's state events (gitlab.go GetComments). */
const STATE_EVENT_TYPES: Readonly<Record<string, string>> = { closed: 'close', reopened: 'reopen', merged: 'merge_pull' };

/** The API root and the project's path from a clone address (gitlab.go GitlabDownloaderFactory.New). */
export function parseGitlabAddr(cloneAddr: string): { origin: string; parts: string[] } {
  const url = new URL(cloneAddr);
  const parts = url.pathname
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/, '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => decodeURIComponent(part));
  if (parts.length < 2) throw new Error(`invalid path: ${parts.join('/')}`);
  return { origin: `${url.protocol}//${url.host}`, parts };
}

export async function createGitlabDownloader(options: DownloaderOptions): Promise<Downloader> {
  const { origin, parts } = parseGitlabAddr(options.cloneAddr);
  const { policy, resolver, timeoutMs } = options;
  const headers: Record<string, string> = { accept: 'application/json' };
  // A token is preferred; a password alone is exchanged for an OAuth token below (go-gitlab's NewBasicAuthClient).
  if (options.auth.token !== '') headers['private-token'] = options.auth.token;
  const client = createSourceClient({ policy, headers, resolver, timeoutMs });

  /** `<origin>[/<sub-path>]`: where the instance lives. */
  let base = origin;
  function get(path: string, query: Query = {}): Promise<SourceAnswer> {
    const search = new URLSearchParams(Object.entries(query).map(([key, value]): [string, string] => [key, String(value)])).toString();
    return client.getJson(`${base}/api/v4${path}${search === '' ? '' : `?${search}`}`, `GET ${path}`);
  }
  function parse<S extends z.ZodTypeAny>(schema: S, json: unknown, path: string): z.output<S> {
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new MigrationSourceError(200, `GET ${path}: unexpected answer (${parsed.error.issues[0]?.path.join('.') ?? ''})`);
    return parsed.data as z.output<S>;
  }
  async function read<S extends z.ZodTypeAny>(schema: S, path: string, query?: Query): Promise<z.output<S>> {
    return parse(schema, (await get(path, query)).json, path);
  }
  /** An endpoint an edition or version lacks (approvals, state events): 404 means none. */
  async function optional<T>(fallback: T, load: () => Promise<T>): Promise<T> {
    return (await unlessMissing(load)) ?? fallback;
  }

  // A sub-path install (https://host/gitlab/group/repo): move path parts into the root until /version answers, a
  // 401 counting as an answer (anonymous callers may not read it) — gitlab.go NewGitlabDownloader.
  let path = [...parts];
  for (;;) {
    try {
      await read(api.glVersion, '/version');
      break;
    } catch (error) {
      if (!(error instanceof MigrationSourceError)) throw error;
      if (error.status === 401) break;
      if (path.length <= 2) throw error;
      base = `${base}/${encodeURIComponent(path[0])}`;
      path = path.slice(1);
    }
  }

  if (options.auth.token === '' && options.auth.password !== '') {
    // GitLab's API takes no basic auth: go-gitlab trades the password for an OAuth token (password grant).
    const response = await outboundRequest(policy, `${base}/oauth/token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username: options.auth.username, password: options.auth.password }).toString(),
      timeoutMs: timeoutMs ?? 60_000,
      resolver,
    });
    if (response.status < 200 || response.status >= 300) {
      throw new MigrationSourceError(response.status, `POST /oauth/token: the source answered ${response.status}: ${sourceMessage(response.body)}`);
    }
    let token: unknown;
    try {
      token = JSON.parse(response.body.toString('utf8')) as unknown;
    } catch {
      token = undefined;
    }
    // The client reads `headers` at each request: from here on they carry the token.
    headers.authorization = `Bearer ${parse(api.glOauthToken, token, '/oauth/token').access_token}`;
  }

  // The project by its path once; by its id afterwards (gitlab.go keeps repoID: escaped paths gave it trouble).
  const found = await read(api.glProject, `/projects/${encodeURIComponent(path.join('/'))}`);
  const projectId = found.id;
  const project = `/projects/${projectId}`;
  /** Where a pull request's branch lives: a project's namespace, URL name and clone URL. */
  type BranchHome = Pick<PullRequestBranch, 'cloneUrl' | 'repoName' | 'ownerName'>;
  const homeOf = (info: z.output<typeof api.glProject>): BranchHome => ({
    cloneUrl: info.http_url_to_repo,
    repoName: info.path !== '' ? info.path : info.name,
    ownerName: info.namespace?.full_path || info.namespace?.path || info.owner?.username || '',
  });
  const home = homeOf(found);
  /** Forks' homes by project id (several merge requests may come from one fork); null: not readable (gone, private). */
  const forks = new Map<number, BranchHome | null>();
  async function forkHome(projectId: number): Promise<BranchHome | null> {
    if (!forks.has(projectId)) {
      const fork = await optional(undefined, () => read(api.glProject, `/projects/${projectId}`));
      forks.set(projectId, fork === undefined ? null : homeOf(fork));
    }
    return forks.get(projectId) ?? null;
  }

  /** One page; its end where X-Next-Page is empty, or (a proxy that drops it) at a short page. */
  async function page<S extends z.ZodTypeAny>(item: S, at: string, query: Query, number: number, perPage: number): Promise<Page<z.output<S>>> {
    const answer = await get(at, { ...query, page: number, per_page: perPage });
    const items = parse(listOf(item), answer.json, at) as z.output<S>[];
    const next = header(answer.headers, 'x-next-page');
    return { items, isEnd: items.length === 0 || (next !== undefined ? next.trim() === '' : items.length < perPage) };
  }
  async function all<S extends z.ZodTypeAny>(item: S, at: string, query: Query = {}): Promise<z.output<S>[]> {
    const found: z.output<S>[] = [];
    for (let number = 1; ; number++) {
      const { items, isEnd } = await page(item, at, query, number, MAX_PER_PAGE);
      found.push(...items);
      if (isEnd) return found;
    }
  }
  const awards = async (at: string): Promise<Reaction[]> => awardsToReactions(await all(api.glAward, at));

  // Merge request numbers follow the largest issue number (gitlab.go gitlabIIDResolver). An issue walk from its first
  // page to its end learns it; a resumed migration (or one without issues) reads the issue numbers first.
  const issueNumbers = new Set<number>();
  let largestIssue = 0;
  let walkedTo = 0;
  let walked = false;
  let offset: number | undefined;
  async function issueOffset(): Promise<number> {
    if (offset === undefined) {
      if (!walked) {
        for (const issue of await all(api.glIssueNumber, `${project}/issues`, { state: 'all', sort: 'asc' })) largestIssue = Math.max(largestIssue, issue.iid);
      }
      offset = largestIssue;
    }
    return offset;
  }
  /** What a number of ours is at the source. */
  async function sourceOf(number: number): Promise<{ kind: 'issues' | 'merge_requests'; iid: number }> {
    if (issueNumbers.has(number)) return { kind: 'issues', iid: number };
    const shift = await issueOffset();
    return number > shift ? { kind: 'merge_requests', iid: number - shift } : { kind: 'issues', iid: number };
  }

  const state = (value: string): 'open' | 'closed' => (value === 'closed' || value === 'merged' ? 'closed' : 'open');
  const named = (list: string[]): Label[] => list.map((name) => ({ name, color: '', description: '', exclusive: false }));
  const epoch = new Date(0);

  return {
    async getRepoInfo(): Promise<MigrationRepository> {
      const info = await read(api.glProject, project);
      return {
        name: info.name,
        // A group's project has no owner (Gitea leaves it empty).
        owner: info.owner?.username ?? (info.namespace?.kind === 'user' ? info.namespace.path : ''),
        isPrivate: info.visibility === 'private' || info.visibility === 'internal',
        isMirror: false,
        description: info.description,
        cloneUrl: info.http_url_to_repo,
        originalUrl: info.web_url,
        defaultBranch: info.default_branch,
      };
    },

    async getTopics(): Promise<string[]> {
      const info = await read(api.glProject, project);
      return info.topics.length > 0 ? info.topics : info.tag_list;
    },

    async getMilestones(): Promise<Milestone[]> {
      // GitLab lists active and closed milestones unless asked for one state (its `state` takes no "all").
      return (await all(api.glMilestone, `${project}/milestones`)).map((milestone) => {
        const deadline = /^\d{4}-\d{2}-\d{2}$/.test(milestone.due_date) ? new Date(`${milestone.due_date}T00:00:00Z`) : undefined;
        const closed = milestone.state === 'closed';
        return {
          title: milestone.title,
          description: milestone.description,
          deadline: deadline !== undefined && !Number.isNaN(deadline.getTime()) ? deadline : undefined,
          created: milestone.created_at ?? epoch,
          updated: milestone.updated_at,
          // GitLab has no closing time: the last update stands in (gitlab.go GetMilestones).
          closed: closed ? milestone.updated_at : undefined,
          state: closed ? 'closed' : 'open',
        };
      });
    },

    async getLabels(): Promise<Label[]> {
      return (await all(api.glLabel, `${project}/labels`)).map((label) => ({
        name: label.name,
        color: normalizeColor(label.color),
        description: label.description,
        // GitLab's scoped labels (`scope::name`) allow one of a scope per issue, as Gitea's exclusive labels.
        exclusive: label.name.includes('::'),
      }));
    },

    async getReleases(): Promise<Release[]> {
      return (await all(api.glRelease, `${project}/releases`)).map((release) => ({
        tagName: release.tag_name,
        targetCommitish: release.commit.id,
        name: release.name,
        body: release.description,
        draft: false,
        prerelease: false,
        publisherId: release.author.id,
        publisherName: release.author.username,
        publisherEmail: release.author.email,
        // A link is a URL the release points at; GitLab knows neither its size nor its downloads.
        assets: release.assets.links.map((link) => ({
          id: link.id,
          name: link.name,
          size: 0,
          downloadCount: 0,
          created: release.created_at ?? epoch,
          updated: release.created_at ?? epoch,
          downloadUrl: link.url !== '' ? link.url : link.direct_asset_url,
        })),
        created: release.created_at ?? epoch,
        published: release.released_at ?? release.created_at ?? epoch,
      }));
    },

    async getIssues(number: number, perPage: number): Promise<Page<Issue>> {
      const found = await page(api.glIssue, `${project}/issues`, { state: 'all', sort: 'asc' }, number, Math.min(perPage, MAX_PER_PAGE));
      if (number === walkedTo + 1) walkedTo = number;
      for (const issue of found.items) {
        issueNumbers.add(issue.iid);
        if (offset === undefined) largestIssue = Math.max(largestIssue, issue.iid);
      }
      if (found.isEnd && walkedTo === number) walked = true;
      const listed = found.items.filter((issue) => !issue.confidential);
      // A request per issue for its awards, a few at once (Gitea asks them one after another).
      const reacted = await mapLimit(listed, ITEM_REQUESTS_AT_ONCE, (issue) => awards(`${project}/issues/${issue.iid}/award_emoji`));
      const issues = listed.map(
        (issue, at): Issue => ({
          number: issue.iid,
          posterId: issue.author.id,
          posterName: issue.author.username,
          posterEmail: issue.author.email,
          title: issue.title,
          content: issue.description,
          ref: '',
          milestone: issue.milestone,
          state: state(issue.state),
          isLocked: issue.discussion_locked,
          created: issue.created_at ?? epoch,
          updated: issue.updated_at ?? issue.created_at ?? epoch,
          closed: issue.closed_at,
          labels: named(issue.labels),
          reactions: reacted[at],
          assignees: issue.assignees,
          foreignIndex: issue.iid,
        }),
      );
      return { items: issues, isEnd: found.isEnd };
    },

    async getComments(issueNumber: number): Promise<Comment[]> {
      const { kind, iid } = await sourceOf(issueNumber);
      const at = `${project}/${kind}/${iid}`;
      // Threads are flattened, as Gitea's issue comments have none.
      const notes = (await all(api.glDiscussion, `${at}/discussions`)).flatMap((discussion) => discussion.notes.filter((note) => !(note.internal || note.confidential)));
      // A system note has no awards; the others' are asked a few at once.
      const comments = await mapLimit(notes, ITEM_REQUESTS_AT_ONCE, async (note): Promise<Comment> => {
        const comment = noteToComment(issueNumber, note);
        return note.system ? comment : { ...comment, reactions: await awards(`${at}/notes/${note.id}/award_emoji`) };
      });
      // Closing, reopening and merging are state events (GitLab 13.2+), not notes.
      for (const event of await optional([], () => all(api.glStateEvent, `${at}/resource_state_events`))) {
        const commentType = STATE_EVENT_TYPES[event.state];
        if (commentType === undefined) continue;
        const created = event.created_at ?? epoch;
        comments.push({
          issueIndex: issueNumber,
          index: event.id,
          commentType,
          posterId: event.user.id,
          posterName: event.user.username,
          posterEmail: event.user.email,
          created,
          updated: created,
          content: '',
          reactions: [],
        });
      }
      return comments.sort((a, b) => a.created.getTime() - b.created.getTime());
    },

    async getPullRequests(number: number, perPage: number): Promise<Page<PullRequest>> {
      const shift = await issueOffset();
      // The list's view is incomplete (gitlab.com issue 29620): each merge request is read on its own (gitlab.go).
      const found = await page(api.glMergeRequestRef, `${project}/merge_requests`, { state: 'all', sort: 'asc', view: 'simple' }, number, Math.min(perPage, MAX_PER_PAGE));
      // Two requests per merge request (itself, its awards), a few merge requests at once.
      const pulls = await mapLimit(found.items, ITEM_REQUESTS_AT_ONCE, async ({ iid }): Promise<PullRequest> => {
        const pull = await read(api.glMergeRequest, `${project}/merge_requests/${iid}`);
        const merged = pull.state === 'merged';
        // Gitea's gitlab.go names the author as the head's owner and never sees a fork; Cairn reads the source
        // project of a merge request from a fork, so that the import fetches the fork's branch (pull-heads.ts). A
        // fork it cannot read (deleted, private) keeps the author as owner: still another repository than the base.
        const fromFork = pull.source_project_id !== 0 && pull.source_project_id !== projectId;
        const fork = fromFork ? await forkHome(pull.source_project_id) : undefined;
        const headHome: BranchHome = !fromFork ? home : (fork ?? { cloneUrl: '', repoName: home.repoName, ownerName: pull.author.username });
        const head: PullRequestBranch = { ...headHome, ref: pull.source_branch, sha: pull.sha };
        return {
          number: shift + pull.iid,
          title: pull.title,
          posterName: pull.author.username,
          posterId: pull.author.id,
          posterEmail: pull.author.email,
          content: pull.description,
          milestone: pull.milestone,
          state: state(pull.state),
          created: pull.created_at ?? epoch,
          updated: pull.updated_at ?? pull.created_at ?? epoch,
          // A merged request without the times was merged and closed at its last update (gitlab.go).
          closed: pull.closed_at ?? (merged ? pull.updated_at : undefined),
          labels: named(pull.labels),
          patchUrl: pull.web_url !== '' ? `${pull.web_url}.patch` : '',
          merged,
          mergedTime: pull.merged_at ?? (merged ? pull.updated_at : undefined),
          mergeCommitSha: pull.merge_commit_sha !== '' ? pull.merge_commit_sha : pull.squash_commit_sha,
          head,
          base: { ...home, ref: pull.target_branch, sha: pull.diff_refs.base_sha },
          assignees: pull.assignees,
          // "locked" is a merge in progress (gitlab.go); a locked discussion is Gitea's lock.
          isLocked: pull.state === 'locked' || pull.discussion_locked,
          reactions: await awards(`${project}/merge_requests/${pull.iid}/award_emoji`),
          foreignIndex: pull.iid,
          isDraft: pull.draft || pull.work_in_progress,
        };
      });
      return { items: pulls, isEnd: found.isEnd };
    },

    async getReviews(pullNumber: number): Promise<Review[]> {
      const { iid } = await sourceOf(pullNumber);
      // Approvals are all GitLab tells; an edition without them answers 404 (gitlab.go GetReviews).
      const approvals = await optional(undefined, () => read(api.glApprovals, `${project}/merge_requests/${iid}/approvals`));
      if (approvals === undefined) return [];
      const createdAt = approvals.created_at ?? approvals.updated_at ?? new Date();
      return approvals.approved_by.map(({ user }) => ({
        // GitLab's approvals have no id; an approver approves a merge request once, so one is derived from the pull
        // request's number and the approver (review-ids.ts): the same at every read, unique within the repository.
        id: derivedReviewId(pullNumber, user.id),
        issueIndex: pullNumber,
        reviewerId: user.id,
        reviewerName: user.username,
        official: false,
        commitId: '',
        content: '',
        createdAt,
        state: 'APPROVED',
        comments: [],
      }));
    },

    openReleaseAsset(asset: ReleaseAsset): Promise<Readable> {
      if (asset.downloadUrl === undefined || asset.downloadUrl === '') throw new MigrationSourceError(404, `release asset ${asset.name} has no download URL`);
      // A link may point anywhere: the source's credentials go only to the source (the guard checks every host).
      const own = asset.downloadUrl === base || asset.downloadUrl.startsWith(`${base}/`);
      return client.open(asset.downloadUrl, `release asset ${asset.name}`, { anonymous: !own });
    },

    async getPullPatch(pull: PullRequest): Promise<Buffer | undefined> {
      if (pull.patchUrl === '') return undefined;
      const what = `the patch of pull request #${pull.number}`;
      const own = pull.patchUrl.startsWith(`${base}/`);
      // A merge request whose source branch is gone may have no patch: 404 is none.
      return unlessMissing(async () => readLimited(await client.open(pull.patchUrl, what, { anonymous: !own }), MAX_PATCH_BYTES, what));
    },
  };
}
