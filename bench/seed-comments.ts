/**
 * Seeds comments and reactions on a repository's issues straight into the issues and social schemas, for the
 * migrate-issues benchmark (the API would take minutes for 20,000 comments): one `INSERT … SELECT` per table, with
 * the comment counter trigger switched off (`session_replication_role = replica`, superuser only) and
 * `issues.num_comments` rebuilt with GROUP BY afterwards, as seed-issues.ts does for its counters.
 *
 * Deterministic, like seed-issues.ts: issue n gets `perIssue` comments by the poster, the k-th created n minutes
 * + k seconds after the epoch (so the repository-wide listing, oldest first, is issue by issue); every
 * REACTION_EVERY-th issue has a `+1` and every REACTION_EVERY-th comment (by the comment's k + n) a `heart`, by the
 * poster. Nothing downstream hears of them (no events).
 */
import type { Client } from 'pg';
import { SEED_EPOCH } from './seed-issues';

export interface SeedCommentsOptions {
  repoId: number;
  /** The user every comment and reaction is by. */
  posterId: number;
  posterName: string;
  perIssue: number;
}

export interface SeedCommentsResult {
  comments: number;
  issueReactions: number;
  commentReactions: number;
  loadMs: number;
}

export const REACTION_EVERY = 10;

const positiveInt = (value: number, what: string): number => {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${what} must be a positive integer, got ${value}`);
  return value;
};

export async function seedComments(client: Client, options: SeedCommentsOptions): Promise<SeedCommentsResult> {
  const repoId = positiveInt(options.repoId, 'repo id');
  const posterId = positiveInt(options.posterId, 'poster id');
  const perIssue = positiveInt(options.perIssue, 'comments per issue');
  const startedAt = Date.now();
  await client.query('BEGIN');
  try {
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query('SET LOCAL synchronous_commit = off');
    // Ordered so that comment ids follow (created, id): the listing's order and the ids agree.
    const comments = await client.query(
      `INSERT INTO issues.comments (repo_id, issue_id, type, poster_id, body, created, updated)
       SELECT i.repo_id, i.id, 0, $2, 'Comment ' || k || ' on issue ' || i.index || ', seeded for the migrate-issues bench.', c, c
       FROM issues.issues i, generate_series(1, $3::int) AS g(k),
            LATERAL (SELECT $4::timestamptz + i.index * interval '1 minute' + k * interval '1 second' AS c) t
       WHERE i.repo_id = $1
       ORDER BY c, i.index, k`,
      [repoId, posterId, perIssue, SEED_EPOCH],
    );
    await client.query(
      `UPDATE issues.issues i SET num_comments = n.n
       FROM (SELECT issue_id, count(*)::int AS n FROM issues.comments WHERE repo_id = $1 AND type = 0 GROUP BY 1) n
       WHERE i.id = n.issue_id`,
      [repoId],
    );
    const issueReactions = await client.query(
      `INSERT INTO social.reactions (repo_id, issue_id, comment_id, user_id, user_name, content, created)
       SELECT repo_id, id, 0, $2, $3, '+1', created FROM issues.issues WHERE repo_id = $1 AND index % ${REACTION_EVERY} = 0`,
      [repoId, posterId, options.posterName],
    );
    const commentReactions = await client.query(
      `INSERT INTO social.reactions (repo_id, issue_id, comment_id, user_id, user_name, content, created)
       SELECT c.repo_id, c.issue_id, c.id, $2, $3, 'heart', c.created
       FROM issues.comments c JOIN issues.issues i ON i.id = c.issue_id
       WHERE c.repo_id = $1 AND (i.index + extract(epoch FROM c.created - i.created)::int) % ${REACTION_EVERY} = 0`,
      [repoId, posterId, options.posterName],
    );
    await client.query('COMMIT');
    const result = {
      comments: comments.rowCount ?? 0,
      issueReactions: issueReactions.rowCount ?? 0,
      commentReactions: commentReactions.rowCount ?? 0,
      loadMs: 0,
    };
    await client.query('VACUUM (ANALYZE) issues.comments, issues.issues, social.reactions');
    return { ...result, loadMs: Date.now() - startedAt };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
