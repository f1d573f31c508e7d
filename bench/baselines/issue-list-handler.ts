/**
 * The issue-list baseline's work, as a lean hand-written service on the same database would do it for
 * `GET /api/v1/repos/{owner}/{repo}/issues?state=…&type=…&page=…&limit=…` from an anonymous caller — three queries:
 * 1. the repository by owner and name, readable by anyone (public, owner public, issues unit on), and whether its
 *    pull requests are (the pulls unit), as the list shows both kinds unless `type` says which;
 * 2. the total (issues.issue_counts) and the page in one statement: the per-block counters (issues.issue_blocks, 1,024 indexes a block)
 *    summed from the top find the block holding the page's first row and how many rows lie above it; then at most
 *    that block's rows are skipped on the (repo, kind, state, index) index — no COUNT(*), no OFFSET over the list;
 *    labels, milestone and assignee ids come along in the same statement;
 * 3. the posters and assignees from accounts.users.
 * Then Gitea's JSON (issue-json.ts) and the `X-Total-Count` and `Link` headers Cairn sends.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Pool } from 'pg';
import { JSON_CONTENT_TYPE, goJson } from './gitea-json';
import {
  type AttachmentRow,
  type IssueJsonSettings,
  type IssuePageRow,
  type RepoRow,
  USER_COLUMNS,
  type UserRow,
  toAnonymousApiUser,
  toApiAttachment,
  toApiIssue,
} from './issue-json';

/** `[api] DEFAULT_PAGING_NUM` and `MAX_RESPONSE_ITEMS`, Cairn's defaults. */
const DEFAULT_PAGING_NUM = 30;
const MAX_RESPONSE_ITEMS = 50;

const PATH = /^\/api\/v1\/repos\/([^/]+)\/([^/]+)\/issues$/;
const KNOWN_PARAMS = new Set(['state', 'type', 'page', 'limit']);

export interface IssueListQuery {
  owner: string;
  repo: string;
  closed: boolean[];
  pull: boolean[];
  page: number;
  limit: number;
}

export class BadRequest extends Error {}

/** Go's `strconv.Atoi` as `ctx.FormInt` reads it: 0 unless a plain integer. */
function formInt(value: string | null): number {
  return value !== null && /^[+-]?\d{1,15}$/.test(value) ? Number(value) : 0;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequest(`malformed path segment ${segment}`);
  }
}

/** The request this baseline answers, or a BadRequest for anything else it does not implement. */
export function parseIssueListRequest(url: URL): IssueListQuery {
  const match = PATH.exec(url.pathname);
  if (match === null) throw new BadRequest(`no such route: ${url.pathname}`);
  for (const key of url.searchParams.keys()) if (!KNOWN_PARAMS.has(key)) throw new BadRequest(`unsupported parameter ${key}`);
  const state = url.searchParams.get('state') ?? 'open';
  const type = url.searchParams.get('type') ?? '';
  const closed = { open: [false], closed: [true], all: [false, true] }[state];
  const pull = { '': [false, true], issues: [false], pulls: [true] }[type];
  if (closed === undefined || pull === undefined) throw new BadRequest(`unsupported state ${state} or type ${type}`);
  const limit = formInt(url.searchParams.get('limit'));
  return {
    owner: decodeSegment(match[1]),
    repo: decodeSegment(match[2]),
    closed,
    pull,
    page: Math.max(formInt(url.searchParams.get('page')), 1),
    limit: limit <= 0 ? DEFAULT_PAGING_NUM : Math.min(limit, MAX_RESPONSE_ITEMS),
  };
}

const REPO_QUERY = `
  SELECT r.id, r.owner_name, r.name,
    EXISTS (SELECT 1 FROM repos.repo_units u WHERE u.repo_id = r.id AND u.unit_key = 'repo.pulls') AS has_pulls
  FROM repos.repositories r
  WHERE r.lower_owner_name = lower($1) AND r.lower_name = lower($2) AND NOT r.is_private AND r.owner_visibility = 'public'
    AND EXISTS (SELECT 1 FROM repos.repo_units u WHERE u.repo_id = r.id AND u.unit_key = 'repo.issues')`;

/**
 * $1 repo id, $2 states (is_closed values), $3 kinds (is_pull values), $4 rows above the page, $5 page size. `start`
 * is the highest block whose running sum from the top passes $4, `above` what the blocks over it hold; the total
 * is the per-state counter's (issues.issue_counts).
 */
const PAGE_QUERY = `
  WITH blocks AS (
    SELECT block, sum(n) AS n FROM issues.issue_blocks
    WHERE repo_id = $1 AND is_closed = ANY($2::boolean[]) AND is_pull = ANY($3::boolean[]) GROUP BY block
  ), start AS (
    SELECT block, upto - n AS above FROM (SELECT block, n, sum(n) OVER (ORDER BY block DESC) AS upto FROM blocks) running
    WHERE upto > $4 ORDER BY block DESC LIMIT 1
  ), page AS (
    SELECT i.* FROM issues.issues i
    WHERE i.repo_id = $1 AND i.is_closed = ANY($2::boolean[]) AND i.is_pull = ANY($3::boolean[])
      AND i.index < ((SELECT block FROM start) + 1) << 10
    ORDER BY i.index DESC
    OFFSET $4 - (SELECT above FROM start) LIMIT $5
  )
  SELECT (SELECT coalesce(sum(n), 0) FROM issues.issue_counts
          WHERE repo_id = $1 AND is_closed = ANY($2::boolean[]) AND is_pull = ANY($3::boolean[])) AS total,
    p.id, p.index, p.poster_id, p.original_author, p.original_author_id, p.title, p.body, p.ref, p.is_closed, p.is_pull,
    p.is_locked, p.num_comments, p.content_version, p.time_estimate, p.pin_order, p.deadline, p.created, p.updated, p.closed_at,
    m.id AS m_id, m.title AS m_title, m.description AS m_description, m.is_closed AS m_is_closed, m.num_issues AS m_num_issues,
    m.num_closed_issues AS m_num_closed_issues, m.created AS m_created, m.updated AS m_updated, m.closed_at AS m_closed_at,
    m.due_on AS m_due_on,
    (SELECT json_agg(json_build_object('id', l.id, 'org_id', l.org_id, 'name', l.name, 'color', l.color,
              'description', l.description, 'exclusive', l.exclusive, 'is_archived', l.archived_at IS NOT NULL)
            ORDER BY lower(l.name), l.id)
       FROM issues.issue_labels il JOIN issues.labels l ON l.id = il.label_id WHERE il.issue_id = p.id) AS labels,
    ARRAY(SELECT a.assignee_id FROM issues.issue_assignees a WHERE a.issue_id = p.id ORDER BY a.assignee_id) AS assignee_ids
  FROM (SELECT 1) one
  LEFT JOIN page p ON true
  LEFT JOIN issues.milestones m ON m.id = p.milestone_id
  ORDER BY p.index DESC`;

const USERS_QUERY = `SELECT ${USER_COLUMNS.join(', ')} FROM accounts.users WHERE id = ANY($1::bigint[])`;

/** The page's issues' own attachments (Cairn: repos' BatchListAttachments, asked beside the users). */
const ATTACHMENTS_QUERY = `SELECT id, issue_id, uuid, name, size, download_count, created FROM repos.attachments
  WHERE issue_id = ANY($1::bigint[]) AND comment_id IS NULL ORDER BY id`;

type PageQueryRow = { total: string } & ({ id: null } | IssuePageRow);

/** `ctx.SetLinkHeader`'s value (modules/paginator): next, last, first, prev — those that apply — or undefined. */
export function linkHeader(url: URL, rootUrl: string, total: number, limit: number): string | undefined {
  const pages = total <= 0 ? 1 : Math.ceil(total / limit);
  const current = Math.min(Math.max(formInt(url.searchParams.get('page')), 1), pages);
  const link = (page: number, rel: string): string => {
    const params = new URLSearchParams(url.searchParams);
    params.set('page', String(page));
    params.sort();
    return `<${rootUrl}${url.pathname.slice(1)}?${params.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (total > current * limit) links.push(link(current + 1, 'next'), link(pages, 'last'));
  if (current > 1) links.push(link(1, 'first'), link(current - 1, 'prev'));
  return links.length === 0 ? undefined : links.join(',');
}

export interface IssueListAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function answer(status: number, value: unknown, headers: Record<string, string> = {}): IssueListAnswer {
  return { status, headers: { 'Content-Type': JSON_CONTENT_TYPE, ...headers }, body: goJson(value) };
}

/** Answers one request of the list. */
export async function issueList(pool: Pool, settings: IssueJsonSettings, url: URL): Promise<IssueListAnswer> {
  let query: IssueListQuery;
  try {
    query = parseIssueListRequest(url);
  } catch (error) {
    if (error instanceof BadRequest) return answer(400, { message: error.message });
    throw error;
  }
  const repo = (await pool.query<RepoRow & { has_pulls: boolean }>(REPO_QUERY, [query.owner, query.repo])).rows[0];
  // Pull requests are listed only where their unit is on (Cairn's issues service: the kinds the viewer may read).
  const kinds = repo?.has_pulls === true ? query.pull : query.pull.filter((isPull) => !isPull);
  if (repo === undefined || kinds.length === 0) return answer(404, { errors: [], message: 'The target couldn\'t be found.', url: `${settings.rootUrl}api/swagger` });

  const offset = (query.page - 1) * query.limit;
  const { rows } = await pool.query<PageQueryRow>(PAGE_QUERY, [repo.id, query.closed, kinds, offset, query.limit]);
  const total = Number(rows[0].total);
  const issues = rows.filter((row): row is { total: string } & IssuePageRow => row.id !== null);
  const userIds = [...new Set(issues.flatMap((row) => [row.poster_id, ...row.assignee_ids]))];
  const users = new Map<string, Record<string, unknown>>();
  const assets = new Map<string, Record<string, unknown>[]>();
  const [userRows, attachmentRows] = await Promise.all([
    userIds.length > 0 ? pool.query<UserRow>(USERS_QUERY, [userIds]) : undefined,
    issues.length > 0 ? pool.query<AttachmentRow>(ATTACHMENTS_QUERY, [issues.map((row) => row.id)]) : undefined,
  ]);
  for (const row of userRows?.rows ?? []) users.set(row.id, toAnonymousApiUser(row, settings));
  for (const row of attachmentRows?.rows ?? []) assets.set(row.issue_id, [...(assets.get(row.issue_id) ?? []), toApiAttachment(row, settings)]);

  const headers: Record<string, string> = { 'X-Total-Count': String(total) };
  const link = linkHeader(url, settings.rootUrl, total, query.limit);
  if (link !== undefined) headers.Link = link;
  headers['Access-Control-Expose-Headers'] = link === undefined ? 'X-Total-Count' : 'Link, X-Total-Count';
  return answer(
    200,
    issues.map((row) => toApiIssue(row, repo, users, assets, settings)),
    headers,
  );
}

/** The request listener: GET only, everything else 404; failures are 500 and logged. */
export function createIssueListHandler(pool: Pool, settings: IssueJsonSettings): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method !== 'GET' || req.url === undefined) {
      res.writeHead(404).end();
      return;
    }
    issueList(pool, settings, new URL(req.url, 'http://baseline'))
      .then((result) => {
        res.writeHead(result.status, { ...result.headers, 'Content-Length': Buffer.byteLength(result.body) });
        res.end(result.body);
      })
      .catch((error: unknown) => {
        process.stderr.write(`baseline issue-list: ${String(error)}\n`);
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': JSON_CONTENT_TYPE }).end(goJson({ message: 'internal error' }));
      });
  };
}
