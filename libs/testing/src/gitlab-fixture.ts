/**
 * A GitLab instance for migration tests (no network here, as Gitea's migration tests replay recorded answers): a
 * loopback server answering a small project `alice/tools` in GitLab API v4's shapes (Project, Milestone, Label,
 * Release, Issue, AwardEmoji, Discussion/Note, ResourceStateEvent, MergeRequest, approvals), with the git data over
 * smart HTTP at `/alice/tools.git` (git http-backend) made of fixed commits, so the SHAs in the answers are the
 * repository's. Lists are paged 2 at a time with GitLab's X-Next-Page/X-Total-Pages; answers can be queued ahead of
 * a path (a 429 with Retry-After), and connections, requests and their credentials are counted.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitHttpBackend } from './git-cgi';

/** The token the fixture takes (PRIVATE-TOKEN), and the OAuth token a password grant for alice/pw answers. */
export const GITLAB_TOKEN = 'glpat-fixture-token';
export const GITLAB_OAUTH_TOKEN = 'oauth-fixture-token';
/** GitLab pages at most this many items here (100 on gitlab.com), so every list of the fixture pages. */
export const GITLAB_PAGE_SIZE = 2;

export interface GitlabFixtureRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  privateToken: string | undefined;
  authorization: string | undefined;
}

export interface QueuedAnswer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

export interface GitlabFixtureOptions {
  /** A sub-path install ("/gitlab"): the API at `<root>/api/v4`, the project at `<root>/alice/tools`. */
  root?: string;
  /** Answers given (once each, in order) before the real answer of a path (API paths as requested, with root). */
  before?: Record<string, QueuedAnswer[]>;
}

export interface GitlabCommits {
  initial: string;
  second: string;
  feature: string;
  merge: string;
  /** The head of carol's fork (carol/tools, project 43): branch carol-fix, one commit on main's second. */
  fork: string;
}

export interface GitlabFixture {
  /** `http://127.0.0.1:<port>` (without the root). */
  url: string;
  /** The project's web address (`<url><root>/alice/tools`). */
  projectUrl: string;
  commits: GitlabCommits;
  /** The bytes of the release asset `tools.tar.gz`. */
  asset: Buffer;
  requests: GitlabFixtureRequest[];
  connections(): number;
  close(): Promise<void>;
}

const ASSET = Buffer.from('tools release asset bytes\n');

/** Runs git with fixed identities and dates: the same commits (and SHAs) every time. */
function git(cwd: string, args: string[], date = '2024-01-01T10:00:00Z'): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Alice',
      GIT_AUTHOR_EMAIL: 'alice@gitlab.example',
      GIT_COMMITTER_NAME: 'Alice',
      GIT_COMMITTER_EMAIL: 'alice@gitlab.example',
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
  }).trim();
}

/** `alice/tools.git` under `root`: main (2 commits, then a merge of `feature`), feature, wip, tags v0.9.0 and v1.0.0. */
function makeRepository(root: string): GitlabCommits {
  const bare = path.join(root, 'alice', 'tools.git');
  const work = path.join(root, 'work');
  fs.mkdirSync(path.dirname(bare), { recursive: true });
  git(root, ['init', '-q', '--bare', '-b', 'main', bare]);
  git(root, ['init', '-q', '-b', 'main', work]);
  fs.writeFileSync(path.join(work, 'README.md'), '# tools\n');
  git(work, ['add', '.']);
  git(work, ['commit', '-q', '-m', 'Initial commit'], '2024-01-01T10:00:00Z');
  const initial = git(work, ['rev-parse', 'HEAD']);
  git(work, ['tag', 'v0.9.0']);
  fs.writeFileSync(path.join(work, 'tool.sh'), 'echo tool\n');
  git(work, ['add', '.']);
  git(work, ['commit', '-q', '-m', 'Add the tool'], '2024-01-02T10:00:00Z');
  const second = git(work, ['rev-parse', 'HEAD']);
  git(work, ['tag', 'v1.0.0']);
  git(work, ['checkout', '-q', '-b', 'feature', initial]);
  fs.writeFileSync(path.join(work, 'feature.txt'), 'a feature\n');
  git(work, ['add', '.']);
  git(work, ['commit', '-q', '-m', 'Add a feature'], '2024-01-03T10:00:00Z');
  const feature = git(work, ['rev-parse', 'HEAD']);
  git(work, ['checkout', '-q', 'main']);
  git(work, ['merge', '-q', '--no-ff', '-m', "Merge branch 'feature' into 'main'", 'feature'], '2024-01-04T10:00:00Z');
  const merge = git(work, ['rev-parse', 'HEAD']);
  git(work, ['push', '-q', bare, 'main', 'feature', `${second}:refs/heads/wip`, 'v0.9.0', 'v1.0.0']);
  // carol's fork: the project's main and a branch of her own, merge request !3's source.
  git(work, ['checkout', '-q', '-b', 'carol-fix', second]);
  fs.writeFileSync(path.join(work, 'fix.txt'), 'fixed by carol\n');
  git(work, ['add', '.']);
  git(work, ['commit', '-q', '-m', 'Fix from a fork'], '2024-01-05T10:00:00Z');
  const fork = git(work, ['rev-parse', 'HEAD']);
  const forkBare = path.join(root, 'carol', 'tools.git');
  fs.mkdirSync(path.dirname(forkBare), { recursive: true });
  git(root, ['init', '-q', '--bare', '-b', 'main', forkBare]);
  git(work, ['push', '-q', forkBare, 'main', 'carol-fix']);
  // GitLab keeps every merge request's head as refs/merge-requests/<iid>/head of the target project.
  git(work, ['push', '-q', bare, `${feature}:refs/merge-requests/1/head`, `${second}:refs/merge-requests/2/head`, `${fork}:refs/merge-requests/3/head`]);
  fs.rmSync(work, { recursive: true, force: true });
  return { initial, second, feature, merge, fork };
}

type Json = Record<string, unknown>;

/** The API's answers for a server at `web` (`<url><root>`). */
function answers(web: string, commits: GitlabCommits) {
  const user = (id: number, username: string, name: string): Json => ({
    id,
    username,
    name,
    state: 'active',
    locked: false,
    avatar_url: `${web}/uploads/-/system/user/avatar/${id}/avatar.png`,
    web_url: `${web}/${username}`,
  });
  const alice = user(1, 'alice', 'Alice');
  const bob = user(2, 'bob', 'Bob');
  const carol = user(3, 'carol', 'Carol');
  const projectWeb = `${web}/alice/tools`;
  const milestone = (id: number, iid: number, title: string, fields: Json): Json => ({
    id,
    iid,
    project_id: 42,
    title,
    description: '',
    state: 'active',
    created_at: '2024-01-01T09:00:00.000Z',
    updated_at: '2024-01-01T09:00:00.000Z',
    due_date: null,
    start_date: null,
    expired: false,
    web_url: `${projectWeb}/-/milestones/${iid}`,
    ...fields,
  });
  const v1 = milestone(11, 1, 'v1.0', { description: 'First release', due_date: '2024-06-30', created_at: '2024-01-02T10:00:00.000Z', updated_at: '2024-01-03T10:00:00.000Z' });
  const v0 = milestone(12, 2, 'v0.9', { state: 'closed', created_at: '2023-11-01T08:00:00.000Z', updated_at: '2023-12-01T08:00:00.000Z', expired: true });
  const label = (id: number, name: string, color: string, description: string | null, priority: number | null): Json => ({
    id,
    name,
    color,
    description,
    description_html: description ?? '',
    text_color: '#FFFFFF',
    open_issues_count: 1,
    closed_issues_count: 0,
    open_merge_requests_count: 0,
    subscribed: false,
    priority,
    is_project_label: true,
  });
  const issue = (iid: number, author: Json, fields: Json): Json => ({
    id: 1000 + iid,
    iid,
    project_id: 42,
    title: `Issue ${iid}`,
    description: `Body of ${iid}`,
    state: 'opened',
    created_at: `2024-02-0${iid}T08:00:00.000Z`,
    updated_at: `2024-02-0${iid}T09:00:00.000Z`,
    closed_at: null,
    closed_by: null,
    labels: [],
    milestone: null,
    assignees: [],
    author,
    type: 'ISSUE',
    assignee: null,
    user_notes_count: 0,
    merge_requests_count: 0,
    upvotes: 0,
    downvotes: 0,
    due_date: null,
    confidential: false,
    discussion_locked: null,
    issue_type: 'issue',
    web_url: `${projectWeb}/-/issues/${iid}`,
    time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
    task_completion_status: { count: 0, completed_count: 0 },
    references: { short: `#${iid}`, relative: `#${iid}`, full: `alice/tools#${iid}` },
    severity: 'UNKNOWN',
    moved_to_id: null,
    ...fields,
  });
  const award = (id: number, name: string, by: Json, awardableId: number, type: string): Json => ({
    id,
    name,
    user: by,
    created_at: '2024-02-10T10:00:00.000Z',
    updated_at: '2024-02-10T10:00:00.000Z',
    awardable_id: awardableId,
    awardable_type: type,
  });
  const note = (id: number, author: Json, body: string, created: string, fields: Json = {}): Json => ({
    id,
    type: null,
    body,
    attachment: null,
    author,
    created_at: created,
    updated_at: created,
    system: false,
    noteable_id: 1001,
    noteable_type: 'Issue',
    project_id: 42,
    resolvable: false,
    confidential: false,
    internal: false,
    noteable_iid: 1,
    commands_changes: {},
    ...fields,
  });
  const discussion = (id: string, individual: boolean, notes: Json[]): Json => ({ id, individual_note: individual, notes });
  const stateEvent = (id: number, by: Json, state: string, created: string, type: string, resource: number): Json => ({
    id,
    user: by,
    created_at: created,
    resource_type: type,
    resource_id: resource,
    state,
  });
  const mergeRequest = (iid: number, author: Json, fields: Json): Json => ({
    id: 2000 + iid,
    iid,
    project_id: 42,
    title: `Merge request ${iid}`,
    description: `Description of !${iid}`,
    state: 'opened',
    created_at: `2024-03-0${iid}T08:00:00.000Z`,
    updated_at: `2024-03-0${iid}T09:00:00.000Z`,
    merged_by: null,
    merge_user: null,
    merged_at: null,
    closed_by: null,
    closed_at: null,
    target_branch: 'main',
    source_branch: 'feature',
    user_notes_count: 0,
    upvotes: 0,
    downvotes: 0,
    author,
    assignees: [],
    assignee: null,
    reviewers: [],
    source_project_id: 42,
    target_project_id: 42,
    labels: [],
    draft: false,
    work_in_progress: false,
    milestone: null,
    merge_when_pipeline_succeeds: false,
    merge_status: 'can_be_merged',
    detailed_merge_status: 'mergeable',
    sha: commits.feature,
    merge_commit_sha: null,
    squash_commit_sha: null,
    discussion_locked: null,
    should_remove_source_branch: null,
    force_remove_source_branch: true,
    reference: `!${iid}`,
    references: { short: `!${iid}`, relative: `!${iid}`, full: `alice/tools!${iid}` },
    web_url: `${projectWeb}/-/merge_requests/${iid}`,
    squash: false,
    subscribed: false,
    changes_count: '1',
    diff_refs: { base_sha: commits.initial, head_sha: commits.feature, start_sha: commits.initial },
    ...fields,
  });
  const simple = (request: Json): Json => {
    const { id, iid, project_id, title, description, state, created_at, updated_at, web_url } = request;
    return { id, iid, project_id, title, description, state, created_at, updated_at, web_url };
  };
  const bug = label(21, 'bug', '#D9534F', 'Something is broken', null);
  const high = label(22, 'priority::high', '#f00', null, 1);
  const low = label(23, 'priority::low', '#00FF00', 'Later', 2);
  const merged = mergeRequest(1, bob, {
    state: 'merged',
    merged_at: '2024-03-02T10:00:00.000Z',
    merge_commit_sha: commits.merge,
    labels: ['bug'],
    milestone: v1,
    assignees: [alice],
  });
  const draft = mergeRequest(2, carol, { title: 'Draft: Merge request 2', draft: true, work_in_progress: true, source_branch: 'wip', sha: commits.second });
  // From carol's fork (project 43), open.
  const fromFork = mergeRequest(3, carol, {
    title: 'Fix from a fork',
    source_branch: 'carol-fix',
    source_project_id: 43,
    sha: commits.fork,
    diff_refs: { base_sha: commits.second, head_sha: commits.fork, start_sha: commits.second },
  });
  const forkWeb = `${web}/carol/tools`;

  return {
    version: { version: '16.11.2', revision: 'fixture' },
    project: {
      id: 42,
      description: 'Handy tools',
      name: 'tools',
      name_with_namespace: 'Alice / tools',
      path: 'tools',
      path_with_namespace: 'alice/tools',
      created_at: '2024-01-01T08:00:00.000Z',
      default_branch: 'main',
      tag_list: ['cli', 'tools'],
      topics: ['cli', 'tools'],
      ssh_url_to_repo: 'git@gitlab.example:alice/tools.git',
      http_url_to_repo: `${projectWeb}.git`,
      web_url: projectWeb,
      readme_url: `${projectWeb}/-/blob/main/README.md`,
      avatar_url: null,
      forks_count: 0,
      star_count: 1,
      last_activity_at: '2024-03-05T08:00:00.000Z',
      namespace: { id: 7, name: 'Alice', path: 'alice', kind: 'user', full_path: 'alice', parent_id: null, avatar_url: null, web_url: `${web}/alice` },
      visibility: 'public',
      owner: alice,
      archived: false,
      issues_enabled: true,
      merge_requests_enabled: true,
      empty_repo: false,
    } as Json,
    forkProject: {
      id: 43,
      description: 'Handy tools',
      name: 'tools',
      name_with_namespace: 'Carol / tools',
      path: 'tools',
      path_with_namespace: 'carol/tools',
      default_branch: 'main',
      http_url_to_repo: `${forkWeb}.git`,
      web_url: forkWeb,
      namespace: { id: 8, name: 'Carol', path: 'carol', kind: 'user', full_path: 'carol', parent_id: null, avatar_url: null, web_url: `${web}/carol` },
      visibility: 'public',
      owner: carol,
      forked_from_project: { id: 42, path_with_namespace: 'alice/tools' },
    } as Json,
    milestones: [v1, v0],
    labels: [bug, high, low],
    releases: [
      {
        tag_name: 'v1.0.0',
        description: 'Notes for 1.0',
        name: 'Version 1',
        created_at: '2024-03-01T12:00:00.000Z',
        released_at: '2024-03-02T12:00:00.000Z',
        upcoming_release: false,
        author: carol,
        commit: { id: commits.second, short_id: commits.second.slice(0, 8), title: 'Add the tool', created_at: '2024-01-02T10:00:00.000Z', parent_ids: [commits.initial] },
        milestones: [v1],
        commit_path: `/alice/tools/-/commit/${commits.second}`,
        tag_path: '/alice/tools/-/tags/v1.0.0',
        assets: {
          count: 5,
          sources: ['zip', 'tar.gz', 'tar.bz2', 'tar'].map((format) => ({ format, url: `${projectWeb}/-/archive/v1.0.0/tools-v1.0.0.${format}` })),
          links: [
            {
              id: 61,
              name: 'tools.tar.gz',
              url: `${projectWeb}/-/releases/v1.0.0/downloads/tools.tar.gz`,
              direct_asset_url: `${projectWeb}/-/releases/v1.0.0/downloads/tools.tar.gz`,
              link_type: 'package',
            },
          ],
        },
        evidences: [],
        _links: { self: `${projectWeb}/-/releases/v1.0.0` },
      },
      {
        tag_name: 'v0.9.0',
        description: '',
        name: 'v0.9.0',
        created_at: '2024-01-05T12:00:00.000Z',
        released_at: '2024-01-05T12:00:00.000Z',
        upcoming_release: false,
        author: alice,
        commit: { id: commits.initial, short_id: commits.initial.slice(0, 8), title: 'Initial commit', created_at: '2024-01-01T10:00:00.000Z', parent_ids: [] },
        milestones: [],
        assets: { count: 4, sources: [], links: [] },
        evidences: [],
        _links: { self: `${projectWeb}/-/releases/v0.9.0` },
      },
    ],
    // sort=asc: oldest first. Issue 4 was deleted; 6 is confidential (its number still counts).
    issues: [
      issue(1, alice, { labels: ['bug'], milestone: v1, assignees: [bob, carol], assignee: bob, user_notes_count: 3, upvotes: 1 }),
      issue(2, carol, {
        state: 'closed',
        closed_at: '2024-02-05T10:00:00.000Z',
        closed_by: alice,
        labels: ['priority::high'],
        milestone: v0,
        discussion_locked: true,
      }),
      issue(3, bob, {}),
      issue(5, alice, { labels: ['bug', 'priority::low'], created_at: '2024-02-06T08:00:00.000Z', updated_at: '2024-02-06T09:00:00.000Z' }),
      issue(6, alice, { title: 'Security hole', description: 'Do not tell anyone', confidential: true, created_at: '2024-02-07T08:00:00.000Z', updated_at: '2024-02-07T09:00:00.000Z' }),
    ],
    issueAwards: {
      1: [award(301, 'thumbsup', bob, 1001, 'Issue'), award(302, 'tada', carol, 1001, 'Issue'), award(303, 'laughing', bob, 1001, 'Issue'), award(304, 'smile', bob, 1001, 'Issue'), award(305, 'coffee', alice, 1001, 'Issue')],
    } as Record<number, Json[]>,
    issueDiscussions: {
      1: [
        discussion('d1', true, [note(501, bob, 'Me too', '2024-02-01T10:00:00.000Z')]),
        discussion('d2', false, [note(502, carol, 'Which version?', '2024-02-01T11:00:00.000Z'), note(503, alice, 'v1.0', '2024-02-01T12:00:00.000Z')]),
        discussion('d3', true, [note(504, alice, 'Only for the team', '2024-02-01T13:00:00.000Z', { internal: true, confidential: true })]),
        discussion('d4', true, [note(505, alice, 'changed the description', '2024-02-01T14:00:00.000Z', { system: true })]),
      ],
      2: [discussion('d5', true, [note(506, carol, 'Fixed in main', '2024-02-05T09:00:00.000Z', { noteable_id: 1002, noteable_iid: 2 })])],
      6: [discussion('d6', true, [note(507, alice, 'The exploit', '2024-02-07T10:00:00.000Z', { noteable_id: 1006, noteable_iid: 6 })])],
    } as Record<number, Json[]>,
    noteAwards: { 501: [award(401, 'thumbsdown', alice, 501, 'Note')], 502: [award(402, 'heart', bob, 502, 'Note'), award(403, 'eyes', alice, 502, 'Note')] } as Record<number, Json[]>,
    issueStateEvents: { 2: [stateEvent(801, alice, 'closed', '2024-02-05T10:00:00.000Z', 'Issue', 1002)] } as Record<number, Json[]>,
    mergeRequests: [merged, draft, fromFork],
    simpleMergeRequests: [simple(merged), simple(draft), simple(fromFork)],
    mergeRequestAwards: { 1: [award(601, 'rocket', alice, 2001, 'MergeRequest')] } as Record<number, Json[]>,
    mergeRequestDiscussions: {
      1: [
        discussion('m1', true, [note(701, alice, 'LGTM', '2024-03-01T10:00:00.000Z', { noteable_type: 'MergeRequest', noteable_id: 2001 })]),
        discussion('m2', true, [note(702, bob, 'changed target branch from `dev` to `main`', '2024-03-01T11:00:00.000Z', { system: true, noteable_type: 'MergeRequest', noteable_id: 2001 })]),
      ],
    } as Record<number, Json[]>,
    mergeRequestStateEvents: { 1: [stateEvent(901, bob, 'merged', '2024-03-02T10:00:00.000Z', 'MergeRequest', 2001)] } as Record<number, Json[]>,
    approvals: {
      1: {
        id: 2001,
        iid: 1,
        project_id: 42,
        title: 'Merge request 1',
        description: 'Description of !1',
        state: 'merged',
        created_at: '2024-03-01T08:00:00.000Z',
        updated_at: '2024-03-01T09:00:00.000Z',
        merge_status: 'can_be_merged',
        approved: true,
        approvals_required: 0,
        approvals_left: 0,
        require_password_to_approve: false,
        approved_by: [{ user: carol }],
        suggested_approvers: [],
        approvers: [],
        approver_groups: [],
        user_has_approved: false,
        user_can_approve: false,
        approval_rules_left: [],
        has_approval_rules: false,
        merge_request_approvers_available: false,
        multiple_approval_rules_available: false,
      },
    } as Record<number, Json>,
    patch: `From ${commits.feature} Mon Sep 17 00:00:00 2001\nFrom: Alice <alice@gitlab.example>\nSubject: [PATCH] Add a feature\n\n---\n feature.txt | 1 +\n`,
  };
}

export async function startGitlabFixture(options: GitlabFixtureOptions = {}): Promise<GitlabFixture> {
  const root = options.root ?? '';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-gitlab-fixture-'));
  const commits = makeRepository(dir);
  const backend = gitHttpBackend(dir);
  const queued = new Map(Object.entries(options.before ?? {}).map(([at, list]) => [at, [...list]]));
  const requests: GitlabFixtureRequest[] = [];
  let connections = 0;
  let data: ReturnType<typeof answers> | undefined;

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
  /** GitLab's offset pagination: X-Page, X-Per-Page, X-Total, X-Total-Pages, X-Next-Page ("" on the last). */
  const paged = (res: http.ServerResponse, query: URLSearchParams, list: readonly unknown[]): void => {
    const perPage = Math.min(Math.max(Number(query.get('per_page') ?? 20) || 20, 1), GITLAB_PAGE_SIZE);
    const page = Math.max(Number(query.get('page') ?? 1) || 1, 1);
    const pages = Math.max(Math.ceil(list.length / perPage), 1);
    send(res, 200, list.slice((page - 1) * perPage, page * perPage), {
      'x-page': String(page),
      'x-per-page': String(perPage),
      'x-total': String(list.length),
      'x-total-pages': String(pages),
      'x-next-page': page < pages ? String(page + 1) : '',
      'x-prev-page': page > 1 ? String(page - 1) : '',
    });
  };

  function api(res: http.ServerResponse, at: string, query: URLSearchParams, authorized: boolean): void {
    if (data === undefined) throw new Error('fixture not started');
    const notFound = (): void => send(res, 404, { message: '404 Not found' });
    if (at === '/version') {
      if (!authorized) send(res, 401, { message: '401 Unauthorized' });
      else send(res, 200, data.version);
      return;
    }
    if (at === '/projects/43' || at.toLowerCase() === '/projects/carol%2ftools') return send(res, 200, data.forkProject);
    const project = /^\/projects\/(42|alice%2Ftools)(\/.*)?$/i.exec(at);
    if (project === null) return notFound();
    const rest = project[2] ?? '';
    if (rest === '') return send(res, 200, data.project);
    if (rest === '/milestones') return paged(res, query, data.milestones);
    if (rest === '/labels') return paged(res, query, data.labels);
    if (rest === '/releases') return paged(res, query, data.releases);
    if (rest === '/issues') {
      const sorted = [...data.issues].sort((a, b) => (a.iid as number) - (b.iid as number));
      return paged(res, query, query.get('sort') === 'asc' ? sorted : sorted.reverse());
    }
    if (rest === '/merge_requests') {
      const list = query.get('view') === 'simple' ? data.simpleMergeRequests : data.mergeRequests;
      return paged(res, query, query.get('sort') === 'asc' ? list : [...list].reverse());
    }
    const item = /^\/(issues|merge_requests)\/(\d+)(\/.*)?$/.exec(rest);
    if (item === null) return notFound();
    const [, kind, number, sub = ''] = item;
    const iid = Number(number);
    const isIssue = kind === 'issues';
    const known = isIssue ? data.issues.some((issue) => issue.iid === iid) : data.mergeRequests.some((request) => request.iid === iid);
    if (!known) return notFound();
    if (sub === '') return send(res, 200, isIssue ? data.issues.find((issue) => issue.iid === iid) : data.mergeRequests.find((request) => request.iid === iid));
    if (sub === '/award_emoji') return paged(res, query, (isIssue ? data.issueAwards : data.mergeRequestAwards)[iid] ?? []);
    if (sub === '/discussions') return paged(res, query, (isIssue ? data.issueDiscussions : data.mergeRequestDiscussions)[iid] ?? []);
    if (sub === '/resource_state_events') return paged(res, query, (isIssue ? data.issueStateEvents : data.mergeRequestStateEvents)[iid] ?? []);
    const noteAwards = /^\/notes\/(\d+)\/award_emoji$/.exec(sub);
    if (noteAwards !== null) return paged(res, query, data.noteAwards[Number(noteAwards[1])] ?? []);
    // Approvals are a paid feature on older editions: merge request 2 answers as such an edition does.
    if (sub === '/approvals' && !isIssue) return data.approvals[iid] !== undefined ? send(res, 200, data.approvals[iid]) : notFound();
    return notFound();
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    const privateToken = req.headers['private-token'] as string | undefined;
    const authorization = req.headers.authorization;
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, privateToken, authorization });
    const queue = queued.get(url.pathname);
    const early = queue?.shift();
    if (early !== undefined) return send(res, early.status, early.body, early.headers);
    if (!url.pathname.startsWith(`${root}/`)) return send(res, 404, { message: '404 Not found' });
    const at = url.pathname.slice(root.length);
    if (at.startsWith('/alice/tools.git/') || at.startsWith('/carol/tools.git/')) {
      // git http-backend finds the repository by PATH_INFO under its root: the sub-path is not part of it.
      req.url = `${at}${url.search}`;
      return backend(req, res);
    }
    if (req.method === 'POST' && at === '/oauth/token') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        if (form.get('grant_type') === 'password' && form.get('username') === 'alice' && form.get('password') === 'pw') {
          send(res, 200, { access_token: GITLAB_OAUTH_TOKEN, token_type: 'Bearer', expires_in: 7200, refresh_token: 'refresh', scope: 'api', created_at: 1700000000 });
        } else send(res, 400, { error: 'invalid_grant', error_description: 'The provided authorization grant is invalid.' });
      });
      return;
    }
    if (at === '/alice/tools/-/releases/v1.0.0/downloads/tools.tar.gz') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(ASSET);
      return;
    }
    if (at === '/alice/tools/-/merge_requests/1.patch') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(data?.patch ?? '');
      return;
    }
    if (at.startsWith('/api/v4/')) {
      const authorized = privateToken === GITLAB_TOKEN || authorization === `Bearer ${GITLAB_OAUTH_TOKEN}`;
      if ((privateToken !== undefined || authorization !== undefined) && !authorized) return send(res, 401, { message: '401 Unauthorized' });
      return api(res, at.slice('/api/v4'.length), url.searchParams, authorized);
    }
    return send(res, 404, { message: '404 Not found' });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  data = answers(`${url}${root}`, commits);
  return {
    url,
    projectUrl: `${url}${root}/alice/tools`,
    commits,
    asset: ASSET,
    requests,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
