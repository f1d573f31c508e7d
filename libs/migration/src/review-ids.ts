/**
 * Ids for reviews a source gives none (GitLab's approvals; GitHub's requested reviewers, which Gitea's github.go
 * leaves at 0): the uploader keys imported reviews by their source id within the repository, so a resumed import
 * that sends a page's reviews again finds them taken in. An approver or requested reviewer counts once per pull
 * request, so (pull request number, user id) names such a review; the id packs the two above 2^52, where no source
 * numbers its own reviews (GitHub's review ids are near 2^32), so it meets no real review id.
 */
import { MigrationSourceError } from './source-http';

const BASE = 2 ** 52;
/** Room for user ids below 2^31 (GitHub's and GitLab's are far below) and pull request numbers below 2^21. */
const USER_SPAN = 2 ** 31;
const MAX_PULL = 2 ** 21;

/** A review id unique within a repository for the review (approval, request) `userId` gave pull request `pullNumber`. */
export function derivedReviewId(pullNumber: number, userId: number): number {
  if (!Number.isSafeInteger(pullNumber) || pullNumber <= 0 || pullNumber >= MAX_PULL || !Number.isSafeInteger(userId) || userId <= 0 || userId >= USER_SPAN) {
    throw new MigrationSourceError(200, `pull request #${pullNumber}: a review by user ${userId} cannot be given an id (number or user id out of range)`);
  }
  return BASE + pullNumber * USER_SPAN + userId;
}
