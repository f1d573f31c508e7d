/**
 * Writing a migrated repository's pull requests and reviews (Gitea's services/migrations/gitea_uploader.go
 * CreatePullRequests and CreateReviews, models/issues InsertReviews): the pull_requests row of an imported issue row,
 * and each review with its timeline entry (type 22) and code comments (type 21), original authors kept. Reviews are
 * keyed by their source ids; their code comments are written in the review's transaction, so they come with it.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import { CODE_COMMENT, REVIEW_COMMENT } from './comments';

export interface ImportPull {
  issueId: number;
  headBranch: string;
  baseBranch: string;
  headCommitId: string;
  mergeBase: string;
  merged: boolean;
  mergedAt: Date | null;
  mergedCommitId: string;
  mergerId: number;
}

/**
 * The pull_requests row of an imported pull request: head and base in the repository itself (Gitea's uploader sets
 * HeadRepoID = BaseRepoID = the new repository). A merged one is recorded merged (status "mergeable", as a merge
 * leaves it); an open or closed one waits for its mergeability check ("checking").
 */
export async function insertImportedPull(tx: DatabaseTransactionConnection, repoId: number, pull: ImportPull): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO pull_requests (issue_id, head_repo_id, head_branch, base_branch, merge_base, head_commit_id, status, has_merged,
                               merged_commit_id, merger_id, merged_at)
    VALUES (${pull.issueId}, ${repoId}, ${pull.headBranch}, ${pull.baseBranch}, ${pull.mergeBase}, ${pull.headCommitId},
            ${pull.merged ? 'mergeable' : 'checking'}, ${pull.merged}, ${pull.mergedCommitId}, ${pull.merged ? pull.mergerId : 0},
            ${pull.mergedAt === null ? null : sql.timestamp(pull.mergedAt)})`);
}

const importedReview = z.object({ source_id: z.number(), id: z.number() });

/** The repository's reviews taken in from these source ids. */
export async function importedReviewIds(db: CommonQueryMethods, repoId: number, sourceIds: readonly number[]): Promise<Map<number, number>> {
  const rows = await db.any(sql.type(importedReview)`
    SELECT source_id, id FROM reviews WHERE repo_id = ${repoId} AND source_id = ANY(${sql.array([...sourceIds], 'int8')})`);
  return new Map(rows.map((row) => [row.source_id, row.id]));
}

export interface ImportAuthorColumns {
  posterId: number;
  originalAuthor: string;
  originalAuthorId: number;
}

export interface ImportCodeComment {
  body: string;
  path: string;
  line: number;
  commitId: string;
  patch: string;
  created: Date;
  updated: Date;
}

export interface ImportReview {
  issueId: number;
  sourceId: number;
  author: ImportAuthorColumns;
  type: number;
  body: string;
  commitId: string;
  official: boolean;
  created: Date;
  comments: readonly ImportCodeComment[];
}

/** Inserts one review (its source id not taken: the caller checked under the import lock), its timeline entry and comments. */
export async function insertImportedReview(tx: DatabaseTransactionConnection, repoId: number, review: ImportReview): Promise<number> {
  const { posterId, originalAuthor, originalAuthorId } = review.author;
  const created = sql.timestamp(review.created);
  const id = await tx.oneFirst(sql.type(z.object({ id: z.number() }))`
    INSERT INTO reviews (repo_id, issue_id, reviewer_id, type, body, commit_id, official, created, updated, original_author, original_author_id, source_id)
    VALUES (${repoId}, ${review.issueId}, ${posterId}, ${review.type}, ${review.body}, ${review.commitId}, ${review.official}, ${created}, ${created},
            ${originalAuthor}, ${originalAuthorId}, ${review.sourceId})
    RETURNING id`);
  await tx.query(sql.unsafe`
    INSERT INTO comments (repo_id, issue_id, type, poster_id, original_author, original_author_id, body, review_id, commit_sha, created, updated)
    VALUES (${repoId}, ${review.issueId}, ${REVIEW_COMMENT}, ${posterId}, ${originalAuthor}, ${originalAuthorId}, ${review.body}, ${id},
            ${review.commitId}, ${created}, ${created})`);
  if (review.comments.length > 0) {
    const rows = review.comments.map((c) => ({ ...c, created: c.created.toISOString(), updated: c.updated.toISOString() }));
    await tx.query(sql.unsafe`
      INSERT INTO comments (repo_id, issue_id, type, poster_id, original_author, original_author_id, body, review_id, tree_path, line,
                            commit_sha, old_ref, patch, created, updated)
      SELECT ${repoId}, ${review.issueId}, ${CODE_COMMENT}, ${posterId}, ${originalAuthor}, ${originalAuthorId}, c.body, ${id}, c.path, c.line,
             c."commitId", c."commitId", c.patch, c.created, c.updated
      FROM jsonb_to_recordset(${sql.jsonb(rows)})
        AS c (body text, path text, line bigint, "commitId" text, patch text, created timestamptz, updated timestamptz)`);
  }
  return id;
}
