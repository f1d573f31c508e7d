/**
 * The parts of Gitea's API v1 answers (modules/structs) a migration reads, checked as they arrive: a source is
 * another server, so nothing it sends is trusted to have a shape. Gitea omits or nulls what it does not know (older
 * versions, gogs), so most fields default.
 */
import { z } from 'zod';

export const text = z.string().nullish().transform((value) => value ?? '');
export const count = z.number().nullish().transform((value) => value ?? 0);
export const flag = z.boolean().nullish().transform((value) => value === true);
/** RFC 3339; Go's zero time (0001-01-01) and null mean "none". */
export const time = z
  .string()
  .nullish()
  .transform((value) => {
    if (value === null || value === undefined || value === '' || value.startsWith('0001-01-01')) return undefined;
    const parsed = new Date(value);
    return Number.isNaN(parsed.getTime()) ? undefined : parsed;
  });

/** A user as Gitea (`login`) or gogs (`username`) names it; `email` is "" when the source hides it. */
export const apiUser = z
  .object({ id: count, login: text, username: text, email: text })
  .transform((user) => ({ id: user.id, login: user.login !== '' ? user.login : user.username, email: user.email }));
const someUser = apiUser.nullish().transform((user) => user ?? { id: 0, login: '', email: '' });

export const apiVersion = z.object({ version: text });
export const apiSettings = z.object({ max_response_items: count });

export const apiRepository = z.object({
  name: text,
  owner: someUser,
  private: flag,
  mirror: flag,
  description: text,
  clone_url: text,
  html_url: text,
  default_branch: text,
});

export const apiTopics = z.object({ topics: z.array(z.string()).nullish().transform((value) => value ?? []) });

export const apiLabel = z.object({ name: text, color: text, description: text, exclusive: flag });

export const apiMilestone = z.object({
  title: text,
  description: text,
  state: text,
  created_at: time,
  updated_at: time,
  closed_at: time,
  due_on: time,
});

export const apiAttachment = z.object({
  id: count,
  name: text,
  size: count,
  download_count: count,
  created_at: time,
  browser_download_url: text,
});

export const apiRelease = z.object({
  tag_name: text,
  target_commitish: text,
  name: text,
  body: text,
  draft: flag,
  prerelease: flag,
  author: someUser,
  created_at: time,
  published_at: time,
  assets: z.array(apiAttachment).nullish().transform((value) => value ?? []),
});

export const apiReaction = z.object({ user: someUser, content: text });

const milestoneTitle = z
  .object({ title: text })
  .nullish()
  .transform((milestone) => milestone?.title ?? '');
const labels = z.array(apiLabel).nullish().transform((value) => value ?? []);
const assignees = z.array(apiUser).nullish().transform((value) => (value ?? []).map((user) => user.login));

/** Items a source itself migrated keep their author's name in `original_author` (Gitea's convert.ToAPIIssue). */
const original = { original_author: text, original_author_id: count };

export const apiIssue = z.object({
  number: count,
  user: someUser,
  ...original,
  title: text,
  body: text,
  ref: text,
  milestone: milestoneTitle,
  state: text,
  is_locked: flag,
  created_at: time,
  updated_at: time,
  closed_at: time,
  labels,
  assignees,
  /** Set on a pull request listed among issues (gogs lists both). */
  pull_request: z.unknown().nullish(),
});

export const apiComment = z.object({
  id: count,
  user: someUser,
  ...original,
  body: text,
  created_at: time,
  updated_at: time,
});

/** A comment of the repository-wide list: it names its issue or pull request by URL. */
export const apiRepoComment = apiComment.extend({
  issue_url: text,
  pull_request_url: text,
});

const apiBranch = z
  .object({
    ref: text,
    sha: text,
    repo: z
      .object({ name: text, clone_url: text, owner: someUser })
      .nullish(),
  })
  .nullish()
  .transform((branch) => branch ?? { ref: '', sha: '', repo: undefined });

export const apiPullRequest = z.object({
  number: count,
  user: someUser,
  ...original,
  title: text,
  body: text,
  milestone: milestoneTitle,
  state: text,
  is_locked: flag,
  draft: flag,
  created_at: time,
  updated_at: time,
  closed_at: time,
  labels,
  assignees,
  patch_url: text,
  merged: flag,
  merged_at: time,
  merge_commit_sha: text,
  merge_base: text,
  head: apiBranch,
  base: apiBranch,
});

export const apiReview = z.object({
  id: count,
  user: apiUser.nullish(),
  official: flag,
  commit_id: text,
  body: text,
  submitted_at: time,
  state: text,
});

export const apiReviewComment = z.object({
  id: count,
  body: text,
  path: text,
  diff_hunk: text,
  position: count,
  original_position: count,
  commit_id: text,
  user: someUser,
  created_at: time,
  updated_at: time,
});

/** A list answer; Gitea answers `null` for some empty lists. */
export const listOf = <S extends z.ZodTypeAny>(item: S) =>
  z
    .array(item)
    .nullish()
    .transform((value) => value ?? []);
