/**
 * The parts of GitHub's REST API v3 answers a migration reads (the fields go-github's structs give Gitea's
 * services/migrations/github.go), checked as they arrive: a source is another server, so nothing it sends is trusted
 * to have a shape. GitHub answers null for what is not set (a milestone, a deleted user, a head fork that is gone).
 */
import { z } from 'zod';

const text = z.string().nullish().transform((value) => value ?? '');
const count = z.number().nullish().transform((value) => value ?? 0);
const flag = z.boolean().nullish().transform((value) => value === true);
/** ISO 8601; null means "none". */
const time = z
  .string()
  .nullish()
  .transform((value) => {
    if (value === null || value === undefined || value === '') return undefined;
    const parsed = new Date(value);
    return Number.isNaN(parsed.getTime()) ? undefined : parsed;
  });

/**
 * GitHub shows a deleted account as its "ghost" user (https://github.com/ghost); where its API answers null instead
 * (a deleted reviewer, reactor or author), the item is kept as ghost's, not lost (Gitea's go-github getters read the
 * missing user as id 0 with no name, which leaves an original author without a name).
 */
export const GHOST_USER = { id: 10137, login: 'ghost', email: '' } as const;

/** A user as GitHub lists it; `email` only where the account shows it (mostly not: "" then). */
export const apiUser = z
  .object({ id: count, login: text, email: text })
  .nullish()
  .transform((user) => (user === null || user === undefined || user.login === '' ? { ...GHOST_USER } : user));

export const apiRepository = z.object({
  name: text,
  owner: apiUser,
  private: flag,
  description: text,
  html_url: text,
  clone_url: text,
  default_branch: text,
});

/** GET /repos/{owner}/{repo}/topics (the mercy preview's answer). */
export const apiTopics = z.object({ names: z.array(z.string()).nullish().transform((value) => value ?? []) });

export const apiLabel = z.object({ name: text, color: text, description: text });

export const apiMilestone = z.object({
  title: text,
  description: text,
  state: text,
  due_on: time,
  created_at: time,
  updated_at: time,
  closed_at: time,
});

export const apiAsset = z.object({
  id: count,
  name: text,
  content_type: text,
  size: count,
  download_count: count,
  created_at: time,
  updated_at: time,
  browser_download_url: text,
});

export const apiRelease = z.object({
  tag_name: text,
  target_commitish: text,
  name: text,
  body: text,
  draft: flag,
  prerelease: flag,
  created_at: time,
  published_at: time,
  author: apiUser,
  assets: z.array(apiAsset).nullish().transform((value) => value ?? []),
});

/** The reaction roll-up GitHub puts on issues and comments: no reaction, no request for them. */
const rollup = z
  .object({ total_count: count })
  .nullish()
  .transform((value) => (value === null || value === undefined ? undefined : value.total_count));

const users = z
  .array(apiUser)
  .nullish()
  .transform((value) => value ?? []);

const milestoneTitle = z
  .object({ title: text })
  .nullish()
  .transform((value) => value?.title ?? '');

export const apiIssue = z.object({
  number: count,
  title: text,
  body: text,
  user: apiUser,
  labels: z.array(apiLabel).nullish().transform((value) => value ?? []),
  milestone: milestoneTitle,
  state: text,
  locked: flag,
  assignees: users,
  created_at: time,
  updated_at: time,
  closed_at: time,
  /** Set on the pull requests GitHub lists among issues. */
  pull_request: z.object({}).passthrough().nullish(),
  reactions: rollup,
});

export const apiReaction = z.object({ user: apiUser, content: text });

export const apiComment = z.object({
  id: count,
  body: text,
  user: apiUser,
  created_at: time,
  updated_at: time,
  reactions: rollup,
});

const branch = z.object({
  ref: text,
  sha: text,
  user: apiUser,
  repo: z
    .object({ name: text, clone_url: text, owner: apiUser })
    .nullish()
    .transform((value) => value ?? undefined),
});

export const apiPullRequest = z.object({
  number: count,
  title: text,
  body: text,
  user: apiUser,
  labels: z.array(apiLabel).nullish().transform((value) => value ?? []),
  milestone: milestoneTitle,
  state: text,
  locked: flag,
  active_lock_reason: z.string().nullish(),
  assignees: users,
  created_at: time,
  updated_at: time,
  closed_at: time,
  merged_at: time,
  merge_commit_sha: text,
  draft: flag,
  head: branch,
  base: branch,
  html_url: text,
  patch_url: text,
});

export const apiReview = z.object({
  id: count,
  user: apiUser,
  body: text,
  state: text,
  commit_id: text,
  submitted_at: time,
});

export const apiReviewComment = z.object({
  id: count,
  in_reply_to_id: count,
  body: text,
  path: text,
  diff_hunk: text,
  position: z.number().nullish(),
  original_position: z.number().nullish(),
  line: z.number().nullish(),
  original_line: z.number().nullish(),
  side: text,
  commit_id: text,
  user: apiUser,
  created_at: time,
  updated_at: time,
  reactions: rollup,
});

/** GET /repos/{owner}/{repo}/pulls/{n}/requested_reviewers. */
export const apiRequestedReviewers = z.object({ users });

export const listOf = <S extends z.ZodTypeAny>(item: S) => z.array(item).nullish().transform((value) => value ?? []);
