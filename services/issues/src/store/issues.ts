/**
 * Reading issues: the `issues` row, one issue by (repository, index), and rows made into Issue messages with their
 * labels, milestone and assignees in one query each for the whole batch (never one query per issue) — or, for
 * lists, in the very statement that reads the rows (HYDRATED_ISSUE_COLUMNS).
 */
import { sql, z, type CommonQueryMethods, type FragmentSqlToken } from '@cairn/db';
import type { Issue, Label, Milestone } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type Check, type Checked, arrayOf, isBoolean, isDate, isNumber, isSafeInteger, isString, nullable, objectOf, rowShape } from './row-shape';

export const issueRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  index: z.number(),
  poster_id: z.number(),
  original_author: z.string(),
  original_author_id: z.number(),
  title: z.string(),
  body: z.string(),
  ref: z.string(),
  is_closed: z.boolean(),
  is_pull: z.boolean(),
  is_locked: z.boolean(),
  milestone_id: z.number().nullable(),
  num_comments: z.number(),
  content_version: z.number(),
  time_estimate: z.number(),
  pin_order: z.number(),
  deadline: z.date().nullable(),
  created: z.date(),
  updated: z.date(),
  closed_at: z.date().nullable(),
  pull_merged_at: z.date().nullable(),
});
export type IssueRow = z.infer<typeof issueRow>;

/** The columns of `issueRow`, for SELECTs that alias the table as `i`. */
export const ISSUE_COLUMNS = sql.fragment`i.id, i.repo_id, i.index, i.poster_id, i.original_author, i.original_author_id, i.title, i.body,
  i.ref, i.is_closed, i.is_pull, i.is_locked, i.milestone_id, i.num_comments, i.content_version, i.time_estimate, i.pin_order,
  i.deadline, i.created, i.updated, i.closed_at,
  CASE WHEN i.is_pull THEN (SELECT p.merged_at FROM pull_requests p WHERE p.issue_id = i.id AND p.has_merged) END AS pull_merged_at`;

export async function findIssueByIndex(db: CommonQueryMethods, repoId: number, index: number): Promise<IssueRow | undefined> {
  const row = await db.maybeOne(sql.type(issueRow)`SELECT ${ISSUE_COLUMNS} FROM issues i WHERE i.repo_id = ${repoId} AND i.index = ${index}`);
  return row ?? undefined;
}

export async function findIssuesByIds(db: CommonQueryMethods, ids: readonly number[]): Promise<IssueRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.any(sql.type(issueRow)`SELECT ${ISSUE_COLUMNS} FROM issues i WHERE i.id = ANY(${sql.array(ids, 'int8')})`);
  return [...rows];
}

export const labelRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  org_id: z.number(),
  name: z.string(),
  color: z.string(),
  description: z.string(),
  exclusive: z.boolean(),
  archived_at: z.date().nullable(),
});
export type LabelRow = z.infer<typeof labelRow>;

export const LABEL_COLUMNS = sql.fragment`l.id, l.repo_id, l.org_id, l.name, l.color, l.description, l.exclusive, l.archived_at`;

export function toLabel(row: LabelRow): Label {
  return {
    id: row.id,
    repoId: row.repo_id,
    orgId: row.org_id,
    name: row.name,
    color: row.color,
    description: row.description,
    exclusive: row.exclusive,
    isArchived: row.archived_at !== null,
  };
}

export const milestoneRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  title: z.string(),
  description: z.string(),
  is_closed: z.boolean(),
  num_issues: z.number(),
  num_closed_issues: z.number(),
  created: z.date(),
  updated: z.date(),
  closed_at: z.date().nullable(),
  due_on: z.date().nullable(),
});
export type MilestoneRow = z.infer<typeof milestoneRow>;

export const MILESTONE_COLUMNS = sql.fragment`m.id, m.repo_id, m.title, m.description, m.is_closed, m.num_issues, m.num_closed_issues,
  m.created, m.updated, m.closed_at, m.due_on`;

export function toMilestone(row: MilestoneRow): Milestone {
  return {
    id: row.id,
    repoId: row.repo_id,
    title: row.title,
    description: row.description,
    state: row.is_closed ? 'closed' : 'open',
    openIssues: row.num_issues - row.num_closed_issues,
    closedIssues: row.num_closed_issues,
    created: row.created,
    updated: row.updated,
    closedAt: row.closed_at ?? undefined,
    dueOn: row.due_on ?? undefined,
  };
}

const issueLabelRow = labelRow.extend({ issue_id: z.number() });
const assigneeRow = z.object({ issue_id: z.number(), assignee_id: z.number() });

/** Issue messages for `rows`, in their order, each with its labels (by name), milestone and assignees. */
export async function toIssues(db: CommonQueryMethods, rows: readonly IssueRow[]): Promise<Issue[]> {
  if (rows.length === 0) return [];
  const ids = sql.array(
    rows.map((row) => row.id),
    'int8',
  );
  const milestoneIds = [...new Set(rows.flatMap((row) => (row.milestone_id === null ? [] : [row.milestone_id])))];
  const [labels, assignees, milestones] = await Promise.all([
    db.any(sql.type(issueLabelRow)`
      SELECT il.issue_id, ${LABEL_COLUMNS} FROM issue_labels il JOIN labels l ON l.id = il.label_id
      WHERE il.issue_id = ANY(${ids}) ORDER BY lower(l.name), l.id`),
    db.any(sql.type(assigneeRow)`SELECT issue_id, assignee_id FROM issue_assignees WHERE issue_id = ANY(${ids}) ORDER BY assignee_id`),
    milestoneIds.length === 0
      ? Promise.resolve([])
      : db.any(sql.type(milestoneRow)`SELECT ${MILESTONE_COLUMNS} FROM milestones m WHERE m.id = ANY(${sql.array(milestoneIds, 'int8')})`),
  ]);
  const labelsOf = groupBy(labels, (row) => row.issue_id);
  const assigneesOf = groupBy(assignees, (row) => row.issue_id);
  const milestoneById = new Map(milestones.map((row) => [row.id, toMilestone(row)]));
  return rows.map((row) =>
    issueOf(
      row,
      (labelsOf.get(row.id) ?? []).map(toLabel),
      row.milestone_id === null ? undefined : milestoneById.get(row.milestone_id),
      (assigneesOf.get(row.id) ?? []).map((assignee) => assignee.assignee_id),
    ),
  );
}

function issueOf(row: IssueRow, labels: Label[], milestone: Milestone | undefined, assigneeIds: number[]): Issue {
  return {
    id: row.id,
    repoId: row.repo_id,
    index: row.index,
    posterId: row.poster_id,
    title: row.title,
    body: row.body,
    ref: row.ref,
    isClosed: row.is_closed,
    isPull: row.is_pull,
    isLocked: row.is_locked,
    labels,
    milestone,
    assigneeIds,
    numComments: row.num_comments,
    contentVersion: row.content_version,
    created: row.created,
    updated: row.updated,
    closedAt: row.closed_at ?? undefined,
    deadline: row.deadline ?? undefined,
    timeEstimate: row.time_estimate,
    pinOrder: row.pin_order,
    originalAuthor: row.original_author,
    originalAuthorId: row.original_author_id,
    pullMergedAt: row.pull_merged_at ?? undefined,
  };
}

/*
 * The same hydration inside the statement that reads the rows, for lists (one round trip instead of four): select
 * `HYDRATED_ISSUE_COLUMNS` over issues `i` and check the rows with `hydratedIssueRow` (or a row shape spreading
 * `HYDRATED_ISSUE_SHAPE`). Labels and the milestone arrive as JSON (labels already in the message's shape, the
 * milestone's times as epoch milliseconds), the assignees as an id array. Lists check rows with row-shape.ts
 * rather than zod: the same checks, without rebuilding every row.
 */
const ISSUE_SHAPE = {
  id: isNumber,
  repo_id: isNumber,
  index: isNumber,
  poster_id: isNumber,
  original_author: isString,
  original_author_id: isNumber,
  title: isString,
  body: isString,
  ref: isString,
  is_closed: isBoolean,
  is_pull: isBoolean,
  is_locked: isBoolean,
  milestone_id: nullable(isNumber),
  num_comments: isNumber,
  content_version: isNumber,
  time_estimate: isNumber,
  pin_order: isNumber,
  deadline: nullable(isDate),
  created: isDate,
  updated: isDate,
  closed_at: nullable(isDate),
  pull_merged_at: nullable(isDate),
};
// Compile-time: the shape checks exactly the columns `issueRow` declares, with the same types.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const issueShapeIsIssueRow: Same<Checked<typeof ISSUE_SHAPE>, IssueRow> = true;
void issueShapeIsIssueRow;

const LABEL_SHAPE = {
  id: isSafeInteger,
  repoId: isSafeInteger,
  orgId: isSafeInteger,
  name: isString,
  color: isString,
  description: isString,
  exclusive: isBoolean,
  isArchived: isBoolean,
} satisfies Record<keyof Label, Check<unknown>>; // every key once; the types are checked where rows become Labels

const MILESTONE_JSON_SHAPE = {
  id: isSafeInteger,
  repo_id: isSafeInteger,
  title: isString,
  description: isString,
  is_closed: isBoolean,
  num_issues: isSafeInteger,
  num_closed_issues: isSafeInteger,
  created: isNumber,
  updated: isNumber,
  closed_at: nullable(isNumber),
  due_on: nullable(isNumber),
} satisfies Record<keyof MilestoneRow, Check<unknown>>; // the times as epoch milliseconds (toHydratedIssue)

export const HYDRATED_ISSUE_SHAPE = {
  ...ISSUE_SHAPE,
  labels: arrayOf(objectOf(LABEL_SHAPE)),
  milestone: nullable(objectOf(MILESTONE_JSON_SHAPE)),
  assignee_ids: arrayOf(isNumber),
};
export const hydratedIssueRow = rowShape(HYDRATED_ISSUE_SHAPE);
export type HydratedIssueRow = Checked<typeof HYDRATED_ISSUE_SHAPE>;

const epochMsOf = (column: FragmentSqlToken): FragmentSqlToken => sql.fragment`(extract(epoch FROM ${column}) * 1000)::float8`;

/** `ISSUE_COLUMNS` and the hydration, over issues `i`, in toIssues' orders (labels by name, assignees by id). */
export const HYDRATED_ISSUE_COLUMNS = sql.fragment`${ISSUE_COLUMNS},
  coalesce((SELECT json_agg(json_build_object('id', l.id, 'repoId', l.repo_id, 'orgId', l.org_id, 'name', l.name, 'color', l.color,
              'description', l.description, 'exclusive', l.exclusive, 'isArchived', l.archived_at IS NOT NULL) ORDER BY lower(l.name), l.id)
            FROM issue_labels il JOIN labels l ON l.id = il.label_id WHERE il.issue_id = i.id), '[]'::json) AS labels,
  (SELECT json_build_object('id', m.id, 'repo_id', m.repo_id, 'title', m.title, 'description', m.description, 'is_closed', m.is_closed,
            'num_issues', m.num_issues, 'num_closed_issues', m.num_closed_issues, 'created', ${epochMsOf(sql.fragment`m.created`)},
            'updated', ${epochMsOf(sql.fragment`m.updated`)}, 'closed_at', ${epochMsOf(sql.fragment`m.closed_at`)},
            'due_on', ${epochMsOf(sql.fragment`m.due_on`)})
     FROM milestones m WHERE m.id = i.milestone_id) AS milestone,
  ARRAY(SELECT a.assignee_id FROM issue_assignees a WHERE a.issue_id = i.id ORDER BY a.assignee_id) AS assignee_ids`;

const dateOf = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

/** The Issue message of a hydrated row: what toIssues answers for the plain row. */
export function toHydratedIssue(row: HydratedIssueRow): Issue {
  const { milestone } = row;
  return issueOf(
    row,
    row.labels,
    milestone === null
      ? undefined
      : toMilestone({
          ...milestone,
          created: new Date(milestone.created),
          updated: new Date(milestone.updated),
          closed_at: dateOf(milestone.closed_at),
          due_on: dateOf(milestone.due_on),
        }),
    row.assignee_ids,
  );
}

export async function toIssue(db: CommonQueryMethods, row: IssueRow): Promise<Issue> {
  const [issue] = await toIssues(db, [row]);
  return issue;
}

function groupBy<T>(rows: readonly T[], key: (row: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group === undefined) groups.set(key(row), [row]);
    else group.push(row);
  }
  return groups;
}
