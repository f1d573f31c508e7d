/**
 * The issue-list baseline's rows → Gitea's `Issue` JSON as Cairn's gateway writes it for an anonymous caller
 * (libs/gitea-json/src/issue.ts `toApiIssues`, label.ts, milestone.ts, user.ts; keys in the same order),
 * so both sides answer the same bytes.
 */
import { goTime } from './gitea-json';
import { USER_COLUMNS, toApiUser, type UserRow } from './user-json';

export { USER_COLUMNS, type UserRow };

/** The repository the list belongs to. */
export interface RepoRow {
  id: string;
  owner_name: string;
  name: string;
}

/** A label as the page query aggregates it (json_agg: numbers as numbers). */
export interface LabelJsonRow {
  id: number;
  org_id: number;
  name: string;
  color: string;
  description: string;
  exclusive: boolean;
  is_archived: boolean;
}

/** One issue of the page with its milestone (m_* columns, NULL without one), labels and assignee ids. */
export interface IssuePageRow {
  id: string;
  index: string;
  poster_id: string;
  original_author: string;
  original_author_id: string;
  title: string;
  body: string;
  ref: string;
  is_closed: boolean;
  is_pull: boolean;
  is_locked: boolean;
  num_comments: number;
  content_version: number;
  time_estimate: string;
  pin_order: number;
  deadline: Date | null;
  created: Date;
  updated: Date;
  closed_at: Date | null;
  m_id: string | null;
  m_title: string | null;
  m_description: string | null;
  m_is_closed: boolean | null;
  m_num_issues: number | null;
  m_num_closed_issues: number | null;
  m_created: Date | null;
  m_updated: Date | null;
  m_closed_at: Date | null;
  m_due_on: Date | null;
  labels: LabelJsonRow[] | null;
  assignee_ids: string[];
}

export interface IssueJsonSettings {
  /** ROOT_URL, ending with "/". */
  rootUrl: string;
  /** `[service] NO_REPLY_ADDRESS`: the domain of the placeholder e-mails anonymous callers see. */
  noReplyAddress: string;
}

/** A user as an anonymous caller sees them (accounts' `userForViewer`): placeholder e-mail, no account details. */
export function toAnonymousApiUser(row: UserRow, settings: IssueJsonSettings): Record<string, unknown> {
  return toApiUser(
    {
      ...row,
      email: `${row.id}+${row.name.toLowerCase()}@${settings.noReplyAddress}`,
      login_name: '',
      source_id: '0',
      language: '',
      is_admin: false,
      last_login: null,
      is_active: false,
      prohibit_login: false,
    },
    settings.rootUrl,
  );
}

/** Gitea's Ghost user (id -1) as an anonymous caller sees it: what stands in for a poster whose account is gone. */
function ghostUser(settings: IssueJsonSettings): Record<string, unknown> {
  return toAnonymousApiUser(
    {
      id: '-1',
      name: 'Ghost',
      full_name: '',
      email: '',
      login_name: '',
      source_id: '0',
      is_admin: false,
      is_active: false,
      prohibit_login: false,
      restricted: false,
      visibility: 'public',
      language: '',
      location: '',
      website: '',
      description: '',
      last_login: null,
      // Cairn's ghost carries the epoch as its creation time.
      created_at: new Date(0),
    },
    settings,
  );
}

const nullableTime = (date: Date | null): string | null => (date === null ? null : goTime(date));

function toApiMilestone(row: IssuePageRow): Record<string, unknown> | null {
  if (row.m_id === null) return null;
  const closed = row.m_is_closed === true;
  return {
    id: Number(row.m_id),
    title: row.m_title,
    description: row.m_description,
    state: closed ? 'closed' : 'open',
    open_issues: Number(row.m_num_issues) - Number(row.m_num_closed_issues),
    closed_issues: Number(row.m_num_closed_issues),
    created_at: goTime(row.m_created),
    updated_at: nullableTime(row.m_updated),
    closed_at: closed ? nullableTime(row.m_closed_at) : null,
    due_on: nullableTime(row.m_due_on),
  };
}

/** A row of repos' attachments, as the issue list needs it. */
export interface AttachmentRow {
  id: string;
  issue_id: string;
  uuid: string;
  name: string;
  size: string;
  download_count: string;
  created: Date;
}

/** Gitea's `Attachment`, as libs/gitea-json/src/attachment.ts writes it. */
export function toApiAttachment(row: AttachmentRow, settings: IssueJsonSettings): Record<string, unknown> {
  return {
    id: Number(row.id),
    name: row.name,
    size: Number(row.size),
    download_count: Number(row.download_count),
    created_at: goTime(row.created),
    uuid: row.uuid,
    browser_download_url: `${settings.rootUrl}attachments/${row.uuid}`,
  };
}

export function toApiIssue(
  row: IssuePageRow,
  repo: RepoRow,
  users: ReadonlyMap<string, Record<string, unknown>>,
  assets: ReadonlyMap<string, Record<string, unknown>[]>,
  settings: IssueJsonSettings,
): Record<string, unknown> {
  const owner = encodeURIComponent(repo.owner_name);
  const name = encodeURIComponent(repo.name);
  const repoApiUrl = `${settings.rootUrl}api/v1/repos/${owner}/${name}`;
  const htmlUrl = `${settings.rootUrl}${owner}/${name}/${row.is_pull ? 'pulls' : 'issues'}/${row.index}`;
  const assignees = row.assignee_ids.flatMap((id) => {
    const user = users.get(id);
    return user === undefined ? [] : [user];
  });
  return {
    id: Number(row.id),
    url: `${repoApiUrl}/issues/${row.index}`,
    html_url: htmlUrl,
    number: Number(row.index),
    user: users.get(row.poster_id) ?? ghostUser(settings),
    original_author: row.original_author,
    original_author_id: Number(row.original_author_id),
    title: row.title,
    body: row.body,
    ref: row.ref,
    assets: assets.get(row.id) ?? [],
    labels: (row.labels ?? []).map((label) => ({
      id: label.id,
      name: label.name,
      exclusive: label.exclusive,
      is_archived: label.is_archived,
      color: label.color,
      description: label.description,
      url:
        label.org_id > 0
          ? `${settings.rootUrl}api/v1/orgs/${owner}/labels/${label.id}`
          : `${repoApiUrl}/labels/${label.id}`,
    })),
    milestone: toApiMilestone(row),
    assignee: assignees[0] ?? null,
    assignees: assignees.length === 0 ? null : assignees,
    state: row.is_closed ? 'closed' : 'open',
    is_locked: row.is_locked,
    comments: row.num_comments,
    created_at: goTime(row.created),
    updated_at: goTime(row.updated),
    closed_at: nullableTime(row.closed_at),
    due_date: nullableTime(row.deadline),
    time_estimate: Number(row.time_estimate),
    pull_request: row.is_pull ? { merged: false, merged_at: null, draft: false, html_url: htmlUrl } : null,
    repository: { id: Number(repo.id), name: repo.name, owner: repo.owner_name, full_name: `${repo.owner_name}/${repo.name}` },
    pin_order: row.pin_order,
    content_version: row.content_version,
  };
}
