/**
 * The parts of GitLab's API v4 answers a migration reads (the fields Gitea's services/migrations/gitlab.go takes from
 * its go-gitlab client), checked as they arrive: a source is another server, so nothing it sends is trusted to have
 * a shape. GitLab omits or nulls what a version or an edition does not know, so most fields default.
 */
import { z } from 'zod';
import { count, flag, listOf, text, time } from './gitea-api';

/** GitLab's basic user (`author`, `assignees`, award and note users); `email` only where an admin token shows it. */
export const glUser = z.object({ id: count, username: text, email: text });
const someUser = glUser.nullish().transform((user) => user ?? { id: 0, username: '', email: '' });
const names = z.array(z.string()).nullish().transform((value) => value ?? []);

export const glVersion = z.object({ version: text });

export const glProject = z.object({
  id: count,
  name: text,
  /** The project's URL name (`tools` of alice/tools). */
  path: text,
  description: text,
  default_branch: text,
  visibility: text,
  web_url: text,
  http_url_to_repo: text,
  owner: glUser.nullish(),
  namespace: z.object({ path: text, full_path: text, kind: text }).nullish(),
  /** Topics since GitLab 14.5; `tag_list` before (deprecated, still sent by 16.x). */
  topics: names,
  tag_list: names,
});

export const glMilestone = z.object({
  title: text,
  description: text,
  /** "active" or "closed". */
  state: text,
  created_at: time,
  updated_at: time,
  /** A date without time ("2024-06-30"). */
  due_date: text,
});

export const glLabel = z.object({ name: text, color: text, description: text });

export const glRelease = z.object({
  tag_name: text,
  name: text,
  description: text,
  created_at: time,
  released_at: time,
  author: someUser,
  commit: z
    .object({ id: text })
    .nullish()
    .transform((commit) => commit ?? { id: '' }),
  assets: z
    .object({ links: listOf(z.object({ id: count, name: text, url: text, direct_asset_url: text })) })
    .nullish()
    .transform((assets) => assets ?? { links: [] }),
});

const milestoneTitle = z
  .object({ title: text })
  .nullish()
  .transform((milestone) => milestone?.title ?? '');
const usernames = listOf(glUser).transform((users) => users.map((user) => user.username));

export const glIssue = z.object({
  iid: count,
  title: text,
  description: text,
  /** "opened" or "closed". */
  state: text,
  author: someUser,
  created_at: time,
  updated_at: time,
  closed_at: time,
  labels: names,
  milestone: milestoneTitle,
  assignees: usernames,
  discussion_locked: flag,
  confidential: flag,
});

/** Only the number, for finding the largest issue number (pull request numbers follow it). */
export const glIssueNumber = z.object({ iid: count });

export const glAward = z.object({ name: text, user: someUser });

export const glNote = z.object({
  id: count,
  body: text,
  author: someUser,
  created_at: time,
  updated_at: time,
  system: flag,
  /** Internal notes (GitLab 15.0+; `confidential` before) are for project members only. */
  internal: flag,
  confidential: flag,
});

export const glDiscussion = z.object({ notes: listOf(glNote) });

export const glStateEvent = z.object({
  id: count,
  user: someUser,
  created_at: time,
  /** "closed", "reopened", "merged" (others ignored). */
  state: text,
});

/** A merge request as `GET /merge_requests/:iid` answers it (the list's fields are incomplete). */
export const glMergeRequest = z.object({
  iid: count,
  title: text,
  description: text,
  /** "opened", "closed", "locked" or "merged". */
  state: text,
  author: someUser,
  created_at: time,
  updated_at: time,
  closed_at: time,
  merged_at: time,
  labels: names,
  milestone: milestoneTitle,
  assignees: usernames,
  source_branch: text,
  target_branch: text,
  /** The project the source branch is in: another than the target's for a merge request from a fork. */
  source_project_id: count,
  target_project_id: count,
  sha: text,
  merge_commit_sha: text,
  squash_commit_sha: text,
  discussion_locked: flag,
  draft: flag,
  work_in_progress: flag,
  web_url: text,
  diff_refs: z
    .object({ base_sha: text })
    .nullish()
    .transform((refs) => refs ?? { base_sha: '' }),
});

export const glMergeRequestRef = z.object({ iid: count });

export const glApprovals = z.object({
  created_at: time,
  updated_at: time,
  approved_by: listOf(z.object({ user: someUser })),
});

export const glOauthToken = z.object({ access_token: z.string().min(1) });
