/**
 * Baseline for `GET /api/v1/notifications/new` and `GET /api/v1/notifications` (default list, page 1) with
 * `Authorization: token …`: what a lean hand-written service on the same database would do —
 * 1. the token and its user (accounts, one query, as the `user` baseline), the notification scope checked;
 * 2. `/new`: the user's unread counter row (notifications.notification_counts);
 *    the list: the page as a merge of the unread and pinned index ranges, and the total from the counters (one
 *    statement), then the hydration: the page's repositories the user may read (repos, with units and a pending
 *    transfer), their owners (accounts), star and watch counters (social), open issue counters and the page's
 *    issues with a pull request's merge time (issues) — three more statements;
 * then Gitea's NotificationThread JSON as the gateway writes it (libs/gitea-json notification.ts, repository.ts).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { JSON_CONTENT_TYPE, goJson, goTime } from './gitea-json';
import { requireEnv, serveBaseline } from './serve';
import { USER_COLUMNS, type UserRow, toApiUser } from './user-json';

const rootUrl = requireEnv('BENCH_ROOT_URL');
const pool = new Pool({ connectionString: requireEnv('BENCH_DATABASE_URL'), max: Number(requireEnv('BENCH_POOL_SIZE')) });

const TOKEN_HEADER = /^(?:token|bearer)\s+(\S+)$/i;
const NOTIFICATION_SCOPES = new Set(['all', 'read:notification', 'write:notification']);
/** `[api] DEFAULT_PAGING_NUM`. */
const PAGE_SIZE = 30;

const TOKEN_QUERY = `
  SELECT ${USER_COLUMNS.map((column) => `u.${column}`).join(', ')}, t.scopes
  FROM accounts.access_tokens t JOIN accounts.users u ON u.id = t.user_id
  WHERE t.token_hash = $1`;

const UNREAD_QUERY = 'SELECT threads FROM notifications.notification_counts WHERE user_id = $1 AND status = 1';

interface ThreadRow {
  id: string;
  repo_id: string;
  subject_type: number;
  issue_id: string;
  comment_id: string;
  status: number;
  updated_at: Date;
  total: string;
}

const PAGE_QUERY = `
  SELECT m.id, m.repo_id, m.subject_type, m.issue_id, m.comment_id, m.status, m.updated_at,
         (SELECT coalesce(sum(threads), 0) FROM notifications.notification_counts WHERE user_id = $1 AND status IN (1, 3)) AS total
  FROM (
    (SELECT id, repo_id, subject_type, issue_id, comment_id, status, updated_at FROM notifications.notification_threads
     WHERE user_id = $1 AND status = 1 ORDER BY updated_at DESC, id DESC LIMIT $2)
    UNION ALL
    (SELECT id, repo_id, subject_type, issue_id, comment_id, status, updated_at FROM notifications.notification_threads
     WHERE user_id = $1 AND status = 3 ORDER BY updated_at DESC, id DESC LIMIT $2)
  ) m
  ORDER BY m.updated_at DESC, m.id DESC LIMIT $2`;

interface RepoRow {
  id: string;
  owner_id: string;
  owner_name: string;
  owner_visibility: string;
  name: string;
  description: string;
  website: string;
  is_private: boolean;
  is_template: boolean;
  is_fork: boolean;
  is_mirror: boolean;
  mirror_interval: string;
  is_empty: boolean;
  is_archived: boolean;
  archived_at: Date | null;
  size: string;
  default_branch: string;
  object_format_name: string;
  num_forks: string;
  num_releases: string;
  branch_count: string;
  licenses: string[];
  topics: string[];
  allow_merge_commits: boolean;
  allow_rebase: boolean;
  allow_rebase_explicit: boolean;
  allow_squash_merge: boolean;
  allow_fast_forward_only_merge: boolean;
  allow_rebase_update: boolean;
  allow_manual_merge: boolean;
  autodetect_manual_merge: boolean;
  default_delete_branch_after_merge: boolean;
  default_merge_style: string;
  default_allow_maintainer_edit: boolean;
  ignore_whitespace_conflicts: boolean;
  enable_time_tracker: boolean;
  allow_only_contributors_to_track_time: boolean;
  enable_issue_dependencies: boolean;
  projects_mode: string;
  created: Date;
  updated: Date;
  units: string[];
  stars: string | null;
  watchers: string | null;
  open_issues: string | null;
  open_pulls: string | null;
}

/**
 * The repositories the user may read: public ones of owners that are not private, and their own (the bench user's
 * threads are all in their own repository; a collaborator's or team's access would join repos.access too). The
 * bench repository has no pending transfer, whose `repo_transfer` this baseline does not write.
 */
const REPO_QUERY = `
  SELECT r.id, r.owner_id, r.owner_name, r.owner_visibility, r.name, r.description, r.website, r.is_private, r.is_template,
         r.is_fork, r.is_mirror, r.mirror_interval, r.is_empty, r.is_archived, r.archived_at, r.size, r.default_branch,
         r.object_format_name, r.num_forks, r.num_releases, r.branch_count, r.licenses, r.topics,
         r.allow_merge_commits, r.allow_rebase, r.allow_rebase_explicit, r.allow_squash_merge, r.allow_fast_forward_only_merge,
         r.allow_rebase_update, r.allow_manual_merge, r.autodetect_manual_merge, r.default_delete_branch_after_merge,
         r.default_merge_style, r.default_allow_maintainer_edit, r.ignore_whitespace_conflicts, r.enable_time_tracker,
         r.allow_only_contributors_to_track_time, r.enable_issue_dependencies, r.projects_mode, r.created, r.updated,
         ARRAY(SELECT u.unit_key FROM repos.repo_units u WHERE u.repo_id = r.id) AS units,
         c.stars, c.watchers,
         (SELECT n FROM issues.issue_counts k WHERE k.repo_id = r.id AND NOT k.is_pull AND NOT k.is_closed) AS open_issues,
         (SELECT n FROM issues.issue_counts k WHERE k.repo_id = r.id AND k.is_pull AND NOT k.is_closed) AS open_pulls
  FROM repos.repositories r LEFT JOIN social.repo_counters c ON c.repo_id = r.id
  WHERE r.id = ANY($1::bigint[]) AND (r.owner_id = $2 OR (NOT r.is_private AND r.owner_visibility <> 'private'))`;

const OWNER_QUERY = `SELECT ${USER_COLUMNS.join(', ')} FROM accounts.users WHERE id = ANY($1::bigint[])`;

interface IssueRow {
  id: string;
  repo_id: string;
  index: string;
  title: string;
  is_closed: boolean;
  is_pull: boolean;
  merged: boolean;
  last_comment_id: string | null;
}

/** With each issue's newest plain comment (type 0), which latest_comment_url names (Gitea's GetLastComment). */
const ISSUE_QUERY = `
  SELECT i.id, i.repo_id, i.index, i.title, i.is_closed, i.is_pull,
         i.is_pull AND EXISTS (SELECT FROM issues.pull_requests p WHERE p.issue_id = i.id AND p.has_merged) AS merged,
         (SELECT c.id FROM issues.comments c WHERE c.issue_id = i.id AND c.type = 0 ORDER BY c.created DESC, c.id DESC LIMIT 1) AS last_comment_id
  FROM issues.issues i WHERE i.id = ANY($1::bigint[])`;

/** Gitea's unit order (repos' REPO_UNITS) for the ones a repository JSON looks at. */
function repoJson(row: RepoRow, owner: Record<string, unknown>, isOwner: boolean): Record<string, unknown> {
  const has = (unit: string): boolean => row.units.includes(unit);
  const esc = (text: string) => encodeURIComponent(text);
  const htmlUrl = `${rootUrl}${esc(row.owner_name)}/${esc(row.name)}`;
  const apiUrl = `${rootUrl}api/v1/repos/${esc(row.owner_name)}/${esc(row.name)}`;
  const pulls = has('repo.pulls');
  const issues = has('repo.issues');
  return {
    id: Number(row.id),
    owner,
    name: row.name,
    full_name: `${row.owner_name}/${row.name}`,
    description: row.description,
    empty: row.is_empty,
    private: row.is_private,
    fork: row.is_fork,
    template: row.is_template,
    mirror: row.is_mirror,
    size: Number(row.size),
    language: '',
    languages_url: `${apiUrl}/languages`,
    html_url: htmlUrl,
    url: apiUrl,
    link: `${new URL(rootUrl).pathname}${esc(row.owner_name)}/${esc(row.name)}`,
    ssh_url: '',
    clone_url: `${htmlUrl}.git`,
    original_url: '',
    website: row.website,
    stars_count: Number(row.stars ?? 0),
    forks_count: Number(row.num_forks),
    watchers_count: Number(row.watchers ?? 0),
    open_issues_count: Number(row.open_issues ?? 0),
    open_pr_counter: Number(row.open_pulls ?? 0),
    release_counter: Number(row.num_releases),
    default_branch: row.default_branch,
    default_target_branch: row.default_branch,
    archived: row.is_archived,
    created_at: goTime(row.created),
    updated_at: goTime(row.updated),
    archived_at: goTime(row.archived_at ?? new Date(0)),
    // The owner's permission (everything); a reader's would be pull only.
    permissions: { admin: isOwner, push: isOwner, pull: true },
    has_code: has('repo.code'),
    has_issues: issues || has('repo.ext_issues'),
    ...(issues
      ? {
          internal_tracker: {
            enable_time_tracker: row.enable_time_tracker,
            allow_only_contributors_to_track_time: row.allow_only_contributors_to_track_time,
            enable_issue_dependencies: row.enable_issue_dependencies,
          },
        }
      : {}),
    has_wiki: has('repo.wiki') || has('repo.ext_wiki'),
    has_pull_requests: pulls,
    has_projects: has('repo.projects'),
    projects_mode: has('repo.projects') && row.projects_mode !== '' ? row.projects_mode : 'all',
    has_releases: has('repo.releases'),
    has_packages: has('repo.packages'),
    has_actions: has('repo.actions'),
    ignore_whitespace_conflicts: pulls && row.ignore_whitespace_conflicts,
    allow_merge_commits: pulls && row.allow_merge_commits,
    allow_rebase: pulls && row.allow_rebase,
    allow_rebase_explicit: pulls && row.allow_rebase_explicit,
    allow_squash_merge: pulls && row.allow_squash_merge,
    allow_fast_forward_only_merge: pulls && row.allow_fast_forward_only_merge,
    allow_rebase_update: pulls && row.allow_rebase_update,
    allow_manual_merge: pulls && row.allow_manual_merge,
    autodetect_manual_merge: pulls && row.autodetect_manual_merge,
    default_delete_branch_after_merge: pulls && row.default_delete_branch_after_merge,
    default_merge_style: pulls && row.default_merge_style !== '' ? row.default_merge_style : 'merge',
    default_allow_maintainer_edit: pulls && row.default_allow_maintainer_edit,
    avatar_url: '',
    internal: !row.is_private && row.owner_visibility === 'private',
    mirror_interval: row.is_mirror ? row.mirror_interval : '',
    object_format_name: row.object_format_name,
    mirror_updated: goTime(null),
    topics: row.topics,
    licenses: row.licenses,
    branch_count: Number(row.branch_count),
  };
}

const SUBJECT_TYPES = ['', 'Issue', 'Pull', 'Commit', 'Repository'];

function threadJson(thread: ThreadRow, repo: { row: RepoRow; json: Record<string, unknown> }, issue: IssueRow | undefined): Record<string, unknown> {
  const esc = (text: string) => encodeURIComponent(text);
  const { row } = repo;
  const type = SUBJECT_TYPES[thread.subject_type] ?? 'Issue';
  const subject = { title: '', url: '', latest_comment_url: '', html_url: '', latest_comment_html_url: '', type, state: '' };
  if ((type === 'Issue' || type === 'Pull') && issue !== undefined && issue.repo_id === thread.repo_id) {
    const repoHtml = `${rootUrl}${esc(row.owner_name)}/${esc(row.name)}`;
    const repoApi = `${rootUrl}api/v1/repos/${esc(row.owner_name)}/${esc(row.name)}`;
    const htmlUrl = `${repoHtml}/${issue.is_pull ? 'pulls' : 'issues'}/${issue.index}`;
    const comment = issue.last_comment_id;
    subject.title = issue.title;
    subject.url = `${repoApi}/issues/${issue.index}`;
    subject.latest_comment_url = comment !== null ? `${repoApi}/issues/comments/${comment}` : '';
    subject.html_url = htmlUrl;
    subject.latest_comment_html_url = comment !== null ? `${htmlUrl}#issuecomment-${comment}` : '';
    subject.state = issue.merged ? 'merged' : issue.is_closed ? 'closed' : 'open';
  }
  return {
    id: Number(thread.id),
    repository: repo.json,
    subject,
    unread: thread.status === 1,
    pinned: thread.status === 3,
    updated_at: goTime(thread.updated_at),
    url: `${rootUrl}api/v1/notifications/threads/${thread.id}`,
  };
}

function send(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = goJson(value);
  res.writeHead(status, { 'Content-Type': JSON_CONTENT_TYPE, 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

async function signedIn(req: IncomingMessage, res: ServerResponse): Promise<UserRow | undefined> {
  const secret = TOKEN_HEADER.exec(req.headers.authorization ?? '')?.[1];
  const unauthorized = { message: 'token is required', url: `${rootUrl}api/swagger` };
  if (secret === undefined) {
    send(res, 401, unauthorized);
    return undefined;
  }
  const tokenHash = createHash('sha256').update(secret, 'utf8').digest('hex');
  const { rows } = await pool.query<UserRow & { scopes: string[] }>(TOKEN_QUERY, [tokenHash]);
  const row = rows[0];
  if (row === undefined) {
    send(res, 401, { message: 'invalid username, password or token', url: `${rootUrl}api/swagger` });
    return undefined;
  }
  if (!row.scopes.some((scope) => NOTIFICATION_SCOPES.has(scope)) || row.scopes.includes('public-only')) {
    send(res, 403, { message: 'token does not have the scope needed', url: `${rootUrl}api/swagger` });
    return undefined;
  }
  return row;
}

async function newAvailable(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const user = await signedIn(req, res);
  if (user === undefined) return;
  const { rows } = await pool.query<{ threads: string }>(UNREAD_QUERY, [user.id]);
  send(res, 200, { new: Number(rows[0]?.threads ?? 0) });
}

async function list(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const user = await signedIn(req, res);
  if (user === undefined) return;
  const { rows: threads } = await pool.query<ThreadRow>(PAGE_QUERY, [user.id, PAGE_SIZE]);
  const repoIds = [...new Set(threads.map((thread) => thread.repo_id))];
  const issueIds = [...new Set(threads.filter((thread) => thread.issue_id !== '0').map((thread) => thread.issue_id))];
  const [repos, issues] = await Promise.all([
    pool.query<RepoRow>(REPO_QUERY, [repoIds, user.id]),
    pool.query<IssueRow>(ISSUE_QUERY, [issueIds]),
  ]);
  const ownerIds = [...new Set(repos.rows.map((row) => row.owner_id))];
  const owners = ownerIds.length === 0 ? [] : (await pool.query<UserRow>(OWNER_QUERY, [ownerIds])).rows;
  // The owners as the user sees them: themself fully (the bench user owns the repository).
  const ownerJson = new Map(owners.map((owner) => [owner.id, toApiUser(owner, rootUrl)]));
  const repoById = new Map(
    repos.rows.map((row) => {
      const owner = ownerJson.get(row.owner_id);
      if (owner === undefined) throw new Error(`owner ${row.owner_id} of repository ${row.id} not found`);
      return [row.id, { row, json: repoJson(row, owner, row.owner_id === user.id) }];
    }),
  );
  const issueById = new Map(issues.rows.map((issue) => [issue.id, issue]));
  const total = threads[0]?.total ?? '0';
  const body = threads.flatMap((thread) => {
    const repo = repoById.get(thread.repo_id);
    return repo === undefined ? [] : [threadJson(thread, repo, issueById.get(thread.issue_id))];
  });
  const pages = Math.ceil(Number(total) / PAGE_SIZE);
  const link =
    pages > 1
      ? `<${rootUrl}api/v1/notifications?page=2>; rel="next",<${rootUrl}api/v1/notifications?page=${pages}>; rel="last"`
      : undefined;
  send(res, 200, body, {
    'X-Total-Count': total,
    ...(link === undefined ? {} : { Link: link }),
    'Access-Control-Expose-Headers': link === undefined ? 'X-Total-Count' : 'Link, X-Total-Count',
  });
}

serveBaseline(
  (req, res) => {
    const handler = req.method !== 'GET' ? undefined : req.url === '/api/v1/notifications/new' ? newAvailable : req.url === '/api/v1/notifications' ? list : undefined;
    if (handler === undefined) {
      res.writeHead(404).end();
      return;
    }
    handler(req, res).catch((error: unknown) => {
      process.stderr.write(`baseline notifications: ${String(error)}\n`);
      if (!res.headersSent) send(res, 500, { message: 'internal error' });
    });
  },
  () => pool.end(),
);
