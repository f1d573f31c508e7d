/**
 * Pinned issues and pull requests (Gitea's issue_pin, kept here in `issues.pin_order`: 0 = not pinned, else the
 * position among the repository's pins of the same kind). Changes to a repository's pins run one after the other
 * (lockRepoPins), so that the count checked against MAX_PINNED and the next position cannot race.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import { ISSUE_COLUMNS, issueRow, type IssueRow } from './issues';
import { PULL_COLUMNS, pullRow, type PullRow } from './pulls';

/** Gitea's CommentTypePin / CommentTypeUnpin: the timeline entries of pinning and unpinning. */
export const COMMENT_TYPE_PIN = 36;
export const COMMENT_TYPE_UNPIN = 37;

/**
 * Serialises pin changes in the repository for the rest of the transaction. The repository's issue counter row
 * exists as soon as it has an issue (and only an existing issue can be pinned); locking it also orders pin changes
 * after a concurrent issue creation, which is harmless.
 */
export async function lockRepoPins(tx: DatabaseTransactionConnection, repoId: number): Promise<void> {
  await tx.query(sql.unsafe`SELECT 1 FROM repo_issue_index WHERE repo_id = ${repoId} FOR UPDATE`);
}

const pinStatsRow = z.object({ pinned: z.number(), highest: z.number() });

/** How many issues (or pull requests) of the repository are pinned, and the highest pin_order among them. */
export async function pinStats(db: CommonQueryMethods, repoId: number, isPull: boolean): Promise<{ pinned: number; highest: number }> {
  return db.one(sql.type(pinStatsRow)`
    SELECT count(*)::int AS pinned, coalesce(max(pin_order), 0)::int AS highest
    FROM issues WHERE repo_id = ${repoId} AND is_pull = ${isPull} AND pin_order > 0`);
}

const pinnedCountsRow = z.object({ issues: z.number(), pulls: z.number() });

/** The repository's pinned issues and pinned pull requests, counted over the pinned rows only. */
export async function pinnedCounts(db: CommonQueryMethods, repoId: number): Promise<{ issues: number; pulls: number }> {
  return db.one(sql.type(pinnedCountsRow)`
    SELECT count(*) FILTER (WHERE NOT is_pull)::int AS issues, count(*) FILTER (WHERE is_pull)::int AS pulls
    FROM issues WHERE repo_id = ${repoId} AND pin_order > 0`);
}

/**
 * Sets the issue's pin_order. Pinning and unpinning touch `updated`, as the timeline entry Gitea writes with them
 * does; moving does not (Gitea writes nothing then).
 */
export async function setPinOrder(tx: DatabaseTransactionConnection, id: number, pinOrder: number, touch: boolean): Promise<IssueRow> {
  const sets = [sql.fragment`pin_order = ${pinOrder}`];
  if (touch) sets.push(sql.fragment`updated = now()`);
  return tx.one(sql.type(issueRow)`
    UPDATE issues AS i SET ${sql.join(sets, sql.fragment`, `)} WHERE i.id = ${id} RETURNING ${ISSUE_COLUMNS}`);
}

/**
 * Makes room for a pin moving from `from` to `to` (Gitea's MovePin): moving up (to < from) pushes the pins at
 * [to, from) down by one; moving down pulls the pins at (from, to] up by one. The moved pin is set afterwards.
 */
export async function shiftPins(
  tx: DatabaseTransactionConnection,
  scope: { repoId: number; isPull: boolean },
  from: number,
  to: number,
): Promise<void> {
  const kind = sql.fragment`repo_id = ${scope.repoId} AND is_pull = ${scope.isPull}`;
  if (to < from) {
    await tx.query(sql.unsafe`UPDATE issues SET pin_order = pin_order + 1 WHERE ${kind} AND pin_order >= ${to} AND pin_order < ${from}`);
  } else {
    await tx.query(sql.unsafe`UPDATE issues SET pin_order = pin_order - 1 WHERE ${kind} AND pin_order > ${from} AND pin_order <= ${to}`);
  }
}

/** The repository's pinned issues (or pull requests' issues), lowest pin_order first. */
export async function listPinnedIssueRows(db: CommonQueryMethods, repoId: number, isPull: boolean): Promise<IssueRow[]> {
  const rows = await db.any(sql.type(issueRow)`
    SELECT ${ISSUE_COLUMNS} FROM issues i
    WHERE i.repo_id = ${repoId} AND i.is_pull = ${isPull} AND i.pin_order > 0 ORDER BY i.pin_order, i.id`);
  return [...rows];
}

/** The repository's pinned pull requests, lowest pin_order first. */
export async function listPinnedPullRows(db: CommonQueryMethods, repoId: number): Promise<PullRow[]> {
  const rows = await db.any(sql.type(pullRow)`
    SELECT ${PULL_COLUMNS} FROM pull_requests p JOIN issues i ON i.id = p.issue_id
    WHERE i.repo_id = ${repoId} AND i.is_pull AND i.pin_order > 0 ORDER BY i.pin_order, i.id`);
  return [...rows];
}
