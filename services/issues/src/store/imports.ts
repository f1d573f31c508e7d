/**
 * Writing a migrated repository's items (Gitea's services/migrations/gitea_uploader.go): labels, milestones, issues
 * with their source numbers, times and original authors, and comments keyed by their source ids. Each write skips
 * what the repository already has (a resumed import sends items again). Counters follow by trigger as for any change.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import { PLAIN_COMMENT } from './comments';

/**
 * Serialises the imports into one repository (and its new issue numbers) on the repository's numbering row, so that
 * a stale import replica overlapping a resumed one cannot add an item twice.
 */
export async function lockRepoForImport(tx: DatabaseTransactionConnection, repoId: number): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO repo_issue_index AS r (repo_id, max_index) VALUES (${repoId}, 0)
    ON CONFLICT (repo_id) DO UPDATE SET max_index = r.max_index`);
}

/** Moves the repository's next issue number past `index` (Gitea's uploader keeps source numbers). */
export async function raiseIssueIndex(tx: DatabaseTransactionConnection, repoId: number, index: number): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE repo_issue_index SET max_index = greatest(max_index, ${index}) WHERE repo_id = ${repoId}`);
}

const nameRow = z.object({ name: z.string() });

/** Which of `names` the repository has labels of. */
export async function existingLabelNames(db: CommonQueryMethods, repoId: number, names: readonly string[]): Promise<Set<string>> {
  const rows = await db.any(sql.type(nameRow)`
    SELECT name FROM labels WHERE repo_id = ${repoId} AND name = ANY(${sql.array([...names], 'text')})`);
  return new Set(rows.map((row) => row.name));
}

export interface ImportLabel {
  name: string;
  color: string;
  description: string;
  exclusive: boolean;
}

export async function insertImportedLabels(tx: DatabaseTransactionConnection, repoId: number, labels: readonly ImportLabel[]): Promise<void> {
  if (labels.length === 0) return;
  await tx.query(sql.unsafe`
    INSERT INTO labels (repo_id, name, color, description, exclusive)
    SELECT ${repoId}, l.name, l.color, l.description, l.exclusive
    FROM jsonb_to_recordset(${sql.jsonb(labels.map((label) => ({ ...label })))}) AS l (name text, color text, description text, exclusive boolean)`);
}

const titleRow = z.object({ title: z.string() });

export async function existingMilestoneTitles(db: CommonQueryMethods, repoId: number, titles: readonly string[]): Promise<Set<string>> {
  const rows = await db.any(sql.type(titleRow)`
    SELECT title FROM milestones WHERE repo_id = ${repoId} AND title = ANY(${sql.array([...titles], 'text')})`);
  return new Set(rows.map((row) => row.title));
}

export interface ImportMilestone {
  title: string;
  description: string;
  isClosed: boolean;
  created: Date;
  updated: Date;
  closedAt: Date | null;
  dueOn: Date | null;
}

export async function insertImportedMilestones(tx: DatabaseTransactionConnection, repoId: number, milestones: readonly ImportMilestone[]): Promise<void> {
  if (milestones.length === 0) return;
  const rows = milestones.map((m) => ({
    title: m.title,
    description: m.description,
    is_closed: m.isClosed,
    created: m.created.toISOString(),
    updated: m.updated.toISOString(),
    closed_at: m.closedAt?.toISOString() ?? null,
    due_on: m.dueOn?.toISOString() ?? null,
  }));
  await tx.query(sql.unsafe`
    INSERT INTO milestones (repo_id, title, description, is_closed, created, updated, closed_at, due_on)
    SELECT ${repoId}, m.title, m.description, m.is_closed, m.created, m.updated, m.closed_at, m.due_on
    FROM jsonb_to_recordset(${sql.jsonb(rows)})
      AS m (title text, description text, is_closed boolean, created timestamptz, updated timestamptz, closed_at timestamptz, due_on timestamptz)`);
}

const idByKey = z.object({ key: z.string(), id: z.number() });

/** Label ids by name and milestone ids by title, of the repository (the first of a name, as findLabelByName). */
export async function labelIdsByName(db: CommonQueryMethods, repoId: number, names: readonly string[]): Promise<Map<string, number>> {
  const rows = await db.any(sql.type(idByKey)`
    SELECT DISTINCT ON (name) name AS key, id FROM labels WHERE repo_id = ${repoId} AND name = ANY(${sql.array([...names], 'text')})
    ORDER BY name, id`);
  return new Map(rows.map((row) => [row.key, row.id]));
}

export async function milestoneIdsByTitle(db: CommonQueryMethods, repoId: number, titles: readonly string[]): Promise<Map<string, number>> {
  const rows = await db.any(sql.type(idByKey)`
    SELECT DISTINCT ON (title) title AS key, id FROM milestones WHERE repo_id = ${repoId} AND title = ANY(${sql.array([...titles], 'text')})
    ORDER BY title, id`);
  return new Map(rows.map((row) => [row.key, row.id]));
}

const indexId = z.object({ index: z.number(), id: z.number() });

/** The ids of the repository's issues of these numbers. */
export async function issueIdsByIndex(db: CommonQueryMethods, repoId: number, indexes: readonly number[]): Promise<Map<number, number>> {
  const rows = await db.any(sql.type(indexId)`
    SELECT index, id FROM issues WHERE repo_id = ${repoId} AND index = ANY(${sql.array([...indexes], 'int8')})`);
  return new Map(rows.map((row) => [row.index, row.id]));
}

export interface ImportIssue {
  index: number;
  posterId: number;
  originalAuthor: string;
  originalAuthorId: number;
  title: string;
  body: string;
  ref: string;
  isClosed: boolean;
  isLocked: boolean;
  milestoneId: number | null;
  created: Date;
  updated: Date;
  closedAt: Date | null;
  labelIds: number[];
  assigneeIds: number[];
  /** A pull request's issue row (its pull_requests row follows: store/pull-imports.ts). */
  isPull?: boolean;
}

/** Inserts one issue (its number not taken: the caller checked under the import lock), its labels and assignees. */
export async function insertImportedIssue(tx: DatabaseTransactionConnection, repoId: number, issue: ImportIssue): Promise<number> {
  const id = await tx.oneFirst(sql.type(z.object({ id: z.number() }))`
    INSERT INTO issues (repo_id, index, poster_id, original_author, original_author_id, title, body, ref, is_closed, is_pull, is_locked,
                        milestone_id, created, updated, closed_at)
    VALUES (${repoId}, ${issue.index}, ${issue.posterId}, ${issue.originalAuthor}, ${issue.originalAuthorId}, ${issue.title}, ${issue.body},
            ${issue.ref}, ${issue.isClosed}, ${issue.isPull ?? false}, ${issue.isLocked}, ${issue.milestoneId}, ${sql.timestamp(issue.created)},
            ${sql.timestamp(issue.updated)}, ${issue.closedAt === null ? null : sql.timestamp(issue.closedAt)})
    RETURNING id`);
  if (issue.labelIds.length > 0) {
    await tx.query(sql.unsafe`
      INSERT INTO issue_labels (issue_id, label_id) SELECT ${id}, unnest(${sql.array(issue.labelIds, 'int8')}) ON CONFLICT DO NOTHING`);
  }
  if (issue.assigneeIds.length > 0) {
    await tx.query(sql.unsafe`
      INSERT INTO issue_assignees (issue_id, assignee_id) SELECT ${id}, unnest(${sql.array(issue.assigneeIds, 'int8')}) ON CONFLICT DO NOTHING`);
  }
  return id;
}

const importedComment = z.object({ source_id: z.number(), id: z.number(), issue_id: z.number() });
export type ImportedCommentRow = z.infer<typeof importedComment>;

/** The repository's comments taken in from these source ids. */
export async function importedComments(db: CommonQueryMethods, repoId: number, sourceIds: readonly number[]): Promise<ImportedCommentRow[]> {
  const rows = await db.any(sql.type(importedComment)`
    SELECT source_id, id, issue_id FROM comments WHERE repo_id = ${repoId} AND source_id = ANY(${sql.array([...sourceIds], 'int8')})`);
  return [...rows];
}

export interface ImportComment {
  issueId: number;
  sourceId: number;
  posterId: number;
  originalAuthor: string;
  originalAuthorId: number;
  body: string;
  created: Date;
  updated: Date;
}

/** Inserts the plain comments (the trigger counts them on their issues); a source id already taken in is skipped. */
export async function insertImportedComments(tx: DatabaseTransactionConnection, repoId: number, comments: readonly ImportComment[]): Promise<ImportedCommentRow[]> {
  if (comments.length === 0) return [];
  const rows = comments.map((c) => ({
    issue_id: c.issueId,
    source_id: c.sourceId,
    poster_id: c.posterId,
    original_author: c.originalAuthor,
    original_author_id: c.originalAuthorId,
    body: c.body,
    created: c.created.toISOString(),
    updated: c.updated.toISOString(),
  }));
  const inserted = await tx.any(sql.type(importedComment)`
    INSERT INTO comments (repo_id, issue_id, type, poster_id, original_author, original_author_id, body, created, updated, source_id)
    SELECT ${repoId}, c.issue_id, ${PLAIN_COMMENT}, c.poster_id, c.original_author, c.original_author_id, c.body, c.created, c.updated, c.source_id
    FROM jsonb_to_recordset(${sql.jsonb(rows)})
      AS c (issue_id bigint, source_id bigint, poster_id bigint, original_author text, original_author_id bigint, body text,
            created timestamptz, updated timestamptz)
    ON CONFLICT (repo_id, source_id) WHERE source_id IS NOT NULL DO NOTHING
    RETURNING source_id, id, issue_id`);
  return [...inserted];
}
