/**
 * The `releases` table and the release attachments of `attachments` (0005_releases_attachments.sql). A release's
 * tag is compared without case, as Gitea's lower_tag_name; deleting a release cascades to its attachments (the
 * trigger there queues their bytes for the purger).
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection, type FragmentSqlToken } from '@cairn/db';
import type { PageWindow } from '../domain/paging';
import type { ReleaseChanges, ReleaseFilter } from '../domain/releases';

const releaseRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  tag_name: z.string(),
  target: z.string(),
  title: z.string(),
  note: z.string(),
  publisher_id: z.number(),
  is_draft: z.boolean(),
  is_prerelease: z.boolean(),
  sha: z.string(),
  created: z.date(),
});

export interface StoredRelease {
  id: number;
  repoId: number;
  tagName: string;
  target: string;
  title: string;
  note: string;
  publisherId: number;
  isDraft: boolean;
  isPrerelease: boolean;
  /** '' for a draft. */
  sha: string;
  created: Date;
}

function toRelease(row: z.infer<typeof releaseRow>): StoredRelease {
  return {
    id: row.id,
    repoId: row.repo_id,
    tagName: row.tag_name,
    target: row.target,
    title: row.title,
    note: row.note,
    publisherId: row.publisher_id,
    isDraft: row.is_draft,
    isPrerelease: row.is_prerelease,
    sha: row.sha,
    created: row.created,
  };
}

const COLUMNS = sql.join(
  Object.keys(releaseRow.shape).map((name) => sql.identifier([name])),
  sql.fragment`, `,
);

export type NewRelease = Omit<StoredRelease, 'id' | 'created'>;

export async function insertRelease(tx: DatabaseTransactionConnection, release: NewRelease): Promise<StoredRelease> {
  const row = await tx.one(sql.type(releaseRow)`
    INSERT INTO releases (repo_id, tag_name, target, title, note, publisher_id, is_draft, is_prerelease, sha)
    VALUES (${release.repoId}, ${release.tagName}, ${release.target}, ${release.title}, ${release.note}, ${release.publisherId},
      ${release.isDraft}, ${release.isPrerelease}, ${release.sha})
    RETURNING ${COLUMNS}
  `);
  return toRelease(row);
}

async function findOne(db: CommonQueryMethods, condition: FragmentSqlToken, lock: boolean): Promise<StoredRelease | undefined> {
  const row = await db.maybeOne(sql.type(releaseRow)`SELECT ${COLUMNS} FROM releases WHERE ${condition} ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
  return row === null ? undefined : toRelease(row);
}

/** The release `id` of the repository (locked when `lock`, for a change in the transaction). */
export function findReleaseById(db: CommonQueryMethods, repoId: number, id: number, lock = false): Promise<StoredRelease | undefined> {
  return findOne(db, sql.fragment`repo_id = ${repoId} AND id = ${id}`, lock);
}

/** The release of the tag (any case), draft or not. */
export function findReleaseByTag(db: CommonQueryMethods, repoId: number, tagName: string, lock = false): Promise<StoredRelease | undefined> {
  return findOne(db, sql.fragment`repo_id = ${repoId} AND lower(tag_name) = ${tagName.toLowerCase()}`, lock);
}

function filterCondition(repoId: number, filter: ReleaseFilter): FragmentSqlToken {
  const conditions: FragmentSqlToken[] = [sql.fragment`repo_id = ${repoId}`];
  if (!filter.includeDrafts) conditions.push(sql.fragment`NOT is_draft`);
  if (filter.draft !== undefined) conditions.push(sql.fragment`is_draft = ${filter.draft}`);
  if (filter.prerelease !== undefined) conditions.push(sql.fragment`is_prerelease = ${filter.prerelease}`);
  return sql.fragment`${sql.join(conditions, sql.fragment` AND `)}`;
}

/** One page of the repository's releases, newest first (Gitea's `created_unix DESC, id DESC`), and how many match. */
export async function listReleases(
  db: CommonQueryMethods,
  query: { repoId: number; filter: ReleaseFilter; window: PageWindow | undefined },
): Promise<{ releases: StoredRelease[]; total: number }> {
  const where = filterCondition(query.repoId, query.filter);
  const page = query.window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${query.window.limit} OFFSET ${query.window.offset}`;
  const rows = await db.any(sql.type(releaseRow)`SELECT ${COLUMNS} FROM releases WHERE ${where} ORDER BY created DESC, id DESC ${page}`);
  const total = await db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int8 AS count FROM releases WHERE ${where}`);
  return { releases: rows.map(toRelease), total };
}

/** Gitea's GetLatestReleaseByRepoID: the newest published release that is not a pre-release. */
export function findLatestRelease(db: CommonQueryMethods, repoId: number): Promise<StoredRelease | undefined> {
  return findOne(db, sql.fragment`repo_id = ${repoId} AND NOT is_draft AND NOT is_prerelease ORDER BY created DESC, id DESC LIMIT 1`, false);
}

/** Writes the release's changed fields (`created` too when it is given) and answers the row as it is now. */
export async function updateRelease(tx: DatabaseTransactionConnection, id: number, changes: ReleaseChanges): Promise<StoredRelease> {
  const columns: Record<keyof ReleaseChanges, string> = {
    tagName: 'tag_name',
    target: 'target',
    title: 'title',
    note: 'note',
    isDraft: 'is_draft',
    isPrerelease: 'is_prerelease',
    sha: 'sha',
    publisherId: 'publisher_id',
    created: 'created',
  };
  const assignments = [sql.fragment`updated = now()`];
  for (const [field, column] of Object.entries(columns) as [keyof ReleaseChanges, string][]) {
    const value = changes[field];
    if (value === undefined) continue;
    assignments.push(sql.fragment`${sql.identifier([column])} = ${value instanceof Date ? sql.timestamp(value) : value}`);
  }
  const row = await tx.one(sql.type(releaseRow)`UPDATE releases SET ${sql.join(assignments, sql.fragment`, `)} WHERE id = ${id} RETURNING ${COLUMNS}`);
  return toRelease(row);
}

/** Deletes the release (its attachments go with it); whether there was one. */
export async function deleteRelease(tx: DatabaseTransactionConnection, id: number): Promise<boolean> {
  const result = await tx.query(sql.unsafe`DELETE FROM releases WHERE id = ${id}`);
  return result.rowCount > 0;
}

/** Those of the tag names (as given) that have a release (any case). */
export async function releasedTags(db: CommonQueryMethods, repoId: number, tagNames: readonly string[]): Promise<string[]> {
  if (tagNames.length === 0) return [];
  const lowered = await db.anyFirst(sql.type(z.object({ name: z.string() }))`
    SELECT lower(tag_name) AS name FROM releases WHERE repo_id = ${repoId} AND lower(tag_name) = ANY(${sql.array(tagNames.map((name) => name.toLowerCase()), 'text')})
  `);
  return tagNames.filter((name) => lowered.includes(name.toLowerCase()));
}

/** Makes the releases of these tags (any case) drafts without a commit; how many there were. */
export async function unpublishReleasesOfTags(tx: DatabaseTransactionConnection, repoId: number, tagNames: readonly string[]): Promise<number> {
  const lowered = tagNames.map((name) => name.toLowerCase());
  const result = await tx.query(sql.unsafe`
    UPDATE releases SET is_draft = true, sha = '', updated = now()
    WHERE repo_id = ${repoId} AND lower(tag_name) = ANY(${sql.array(lowered, 'text')})
  `);
  return result.rowCount;
}

/** Points the published release of the tag (any case), if any, at `sha`. */
export async function moveReleaseOfTag(tx: DatabaseTransactionConnection, repoId: number, tagName: string, sha: string): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE releases SET sha = ${sha}, updated = now()
    WHERE repo_id = ${repoId} AND lower(tag_name) = ${tagName.toLowerCase()} AND NOT is_draft AND sha <> ${sha}
  `);
}

/** Keeps `repositories.num_releases` (Gitea's release counter) at the number of published releases. */
export async function recountReleases(tx: DatabaseTransactionConnection, repoId: number): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE repositories SET num_releases = (SELECT count(*) FROM releases WHERE repo_id = ${repoId} AND NOT is_draft)
    WHERE id = ${repoId}
  `);
}

const attachmentRow = z.object({
  id: z.number(),
  uuid: z.string(),
  repo_id: z.number(),
  release_id: z.number(),
  uploader_id: z.number(),
  name: z.string(),
  size: z.number(),
  download_count: z.number(),
  created: z.date(),
});

export interface ReleaseAttachment {
  id: number;
  uuid: string;
  repoId: number;
  releaseId: number;
  uploaderId: number;
  name: string;
  size: number;
  downloadCount: number;
  created: Date;
}

/** The attachments of each of the releases, oldest first (Gitea's release.LoadAttributes). */
export async function attachmentsOfReleases(db: CommonQueryMethods, releaseIds: readonly number[]): Promise<Map<number, ReleaseAttachment[]>> {
  const byRelease = new Map<number, ReleaseAttachment[]>();
  if (releaseIds.length === 0) return byRelease;
  const rows = await db.any(sql.type(attachmentRow)`
    SELECT id, uuid::text AS uuid, repo_id, release_id, uploader_id, name, size, download_count, created
    FROM attachments WHERE release_id = ANY(${sql.array([...releaseIds], 'int8')})
    ORDER BY release_id, id
  `);
  for (const row of rows) {
    const list = byRelease.get(row.release_id) ?? [];
    list.push({
      id: row.id,
      uuid: row.uuid,
      repoId: row.repo_id,
      releaseId: row.release_id,
      uploaderId: row.uploader_id,
      name: row.name,
      size: row.size,
      downloadCount: row.download_count,
      created: row.created,
    });
    byRelease.set(row.release_id, list);
  }
  return byRelease;
}

export interface ImportRelease extends NewRelease {
  originalAuthor: string;
  originalAuthorId: number;
  created: Date;
}

/** Adds a migrated release unless its tag has one (any case); true when added. */
export async function insertImportedRelease(tx: DatabaseTransactionConnection, release: ImportRelease): Promise<boolean> {
  const result = await tx.query(sql.unsafe`
    INSERT INTO releases (repo_id, tag_name, target, title, note, publisher_id, is_draft, is_prerelease, sha, created, updated,
                          original_author, original_author_id)
    VALUES (${release.repoId}, ${release.tagName}, ${release.target}, ${release.title}, ${release.note}, ${release.publisherId},
      ${release.isDraft}, ${release.isPrerelease}, ${release.sha}, ${sql.timestamp(release.created)}, ${sql.timestamp(release.created)},
      ${release.originalAuthor}, ${release.originalAuthorId})
    ON CONFLICT (repo_id, lower(tag_name)) DO NOTHING`);
  return result.rowCount === 1;
}
