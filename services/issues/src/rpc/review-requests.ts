/**
 * Review requests (Gitea's IsValidReviewRequest, AddReviewRequest, RemoveReviewRequest), shared by CreatePull and
 * ReviewService: a request is a REQUEST_REVIEW review plus a `review_requests` row, which an approval or change
 * request of the reviewer answers and a cancellation withdraws. Teams of an organization's repository may be asked
 * too (Gitea's TeamReviewRequest): a REQUEST_REVIEW review with the team, which an approval or change request of a
 * member answers (review-service.ts). Who counts as an official reviewer is Gitea's IsOfficialReviewer, from repos'
 * match of the base branch's protection (its approvals allow list).
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { Team } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { BranchProtectionMatch } from '@cairn/proto/cairn/repos/v1/repos_service';
import { actorOf, CairnError, Code } from '@cairn/rpc';
import { type Access, accessOf, canRead, canWrite } from '../domain/permissions';
import { internalActor } from '../domain/pull-check';
import { type TimelineEntry, TimelineType } from '../domain/timeline-entries';
import type { PullRow } from '../store/pulls';
import { insertTimelineEntries } from '../store/timeline';
import {
  type ReviewRow,
  ReviewType,
  addReviewRequest,
  clearOfficial,
  clearTeamOfficial,
  deleteReviewRow,
  findTeamRequest,
  insertReview,
  insertTeamRequest,
  latestDecidingReview,
  removeReviewRequest,
  restoreOfficial,
} from '../store/reviews';
import type { IssuesContext } from './context';

/** Each reviewer asked costs a question to repos; one request asks at most this many (Gitea has no limit). */
export const MAX_REVIEWERS = 100;

export interface CheckedReviewer {
  id: number;
  /** The reviewer's reviews count (Gitea's IsOfficialReviewer). */
  official: boolean;
}

function notValid(reason: string, reviewerId: number, repoId: number): CairnError {
  return CairnError.invalid(`${reason} [user_id: ${reviewerId}, repo_id: ${repoId}]`, { reason: 'review_request_invalid' });
}

/** Gitea's owner type of an organization (Repository.owner_type). */
const ORGANIZATION = 1;

function reviewerActor(userId: number): Actor {
  return { userId, isAdmin: false, isRestricted: false };
}

/** repos' match of the base branch for `viewer` (undefined when they may not read the code: no official review). */
async function baseBranchMatch(context: Pick<IssuesContext, 'repos'>, repoId: number, branch: string, viewer: Actor | undefined): Promise<BranchProtectionMatch | undefined> {
  try {
    const { matches } = await context.repos.protections.matchBranchProtection({ viewer, repoId, branches: [branch] });
    return matches[0];
  } catch (error) {
    if (error instanceof CairnError && (error.code === Code.NOT_FOUND || error.code === Code.PERMISSION_DENIED)) return undefined;
    throw error;
  }
}

/**
 * Gitea's IsOfficialReviewer: whether `viewer`'s approvals and change requests count on a pull request into `branch`
 * (on the approvals allow list of the branch's rule when it has one on, else a code writer).
 */
export async function isOfficialReviewer(context: Pick<IssuesContext, 'repos'>, repoId: number, branch: string, viewer: Actor | undefined): Promise<boolean> {
  return (await baseBranchMatch(context, repoId, branch, viewer))?.officialReviewer ?? false;
}

/** The teams whose review requests issue search's review_requested also finds for `userId` (none for 0). */
export async function reviewRequestedTeams(context: Pick<IssuesContext, 'teams'>, userId: number): Promise<{ reviewRequestedTeamIds: number[] }> {
  if (userId <= 0) return { reviewRequestedTeamIds: [] };
  const { teams } = await context.teams.listUserTeams({ userId, orgId: 0 });
  return { reviewRequestedTeamIds: teams.map((team) => team.teamId) };
}

/** Gitea's CanDoerChangeReviewRequests: the poster, the repository's owner, or someone who writes pull requests. */
export function canChangeReviewRequests(access: Access, posterId: number): boolean {
  if (access.repository.archived) return false;
  const viewerId = access.viewer.id;
  return viewerId === posterId || viewerId === access.repository.ownerId || canWrite(access, true);
}

/** The reviewer's access to the base repository, as repos decides it. */
async function reviewerAccess(context: Pick<IssuesContext, 'repos'>, access: Access, reviewerId: number): Promise<Access | undefined> {
  try {
    const { repository } = await context.repos.repos.getRepository({
      viewer: { userId: reviewerId, isAdmin: false, isRestricted: false },
      id: access.repository.id,
      owner: '',
      name: '',
    });
    return repository === undefined ? undefined : accessOf({ viewer: { userId: reviewerId, isAdmin: false, isRestricted: false }, repository });
  } catch (error) {
    if (error instanceof CairnError && error.code === Code.NOT_FOUND) return undefined;
    throw error;
  }
}

/**
 * Checks that the viewer may ask (`add`) or stop asking these users to review, and that each may review: reads
 * pull requests and is not the poster. INVALID_ARGUMENT (Gitea's 422 ErrNotValidReviewRequest) otherwise.
 */
export async function checkReviewers(
  context: Pick<IssuesContext, 'repos' | 'db'>,
  access: Access,
  pull: Pick<PullRow, 'issue_id' | 'poster_id' | 'base_branch'>,
  reviewerIds: readonly number[],
  add: boolean,
): Promise<CheckedReviewer[]> {
  const repoId = access.repository.id;
  const ids = [...new Set(reviewerIds)];
  if (ids.length > MAX_REVIEWERS) throw CairnError.invalid(`at most ${MAX_REVIEWERS} reviewers per request`, { reason: 'too_many_reviewers' });
  if (ids.some((id) => !Number.isSafeInteger(id) || id <= 0)) throw CairnError.invalid('user does not exist', { reason: 'reviewer_not_found' });
  const canChange = canChangeReviewRequests(access, pull.poster_id);
  const checked: CheckedReviewer[] = [];
  for (const id of ids) {
    if (!add) {
      if (!canChange) {
        // Reviewers may withdraw themselves.
        const last = await latestDecidingReview(context.db.pool, pull.issue_id, id);
        if (!(last?.type === ReviewType.request && id === access.viewer.id)) throw notValid("Doer can't remove reviewer", id, repoId);
      }
      checked.push({ id, official: false });
      continue;
    }
    const reviewer = await reviewerAccess(context, access, id);
    if (reviewer === undefined || !canRead(reviewer, true)) throw notValid("Reviewer can't read", id, repoId);
    if (id === pull.poster_id) throw notValid("poster of pr can't be reviewer", id, repoId);
    if (!canChange) throw notValid("Doer can't choose reviewer", id, repoId);
    checked.push({ id, official: await isOfficialReviewer(context, repoId, pull.base_branch, reviewerActor(id)) });
  }
  return checked;
}

/**
 * Gitea's AddReviewRequest / RemoveReviewRequest (and their team forms) entry: the reviewer or team, removed or not.
 * It leaves the review id out: the request's review row goes when the request is withdrawn.
 */
function reviewRequestEntry(
  pull: PullRow,
  doerId: number,
  who: { assigneeId?: number; assigneeTeamId?: number; removedAssignee?: boolean },
): TimelineEntry {
  return { repoId: pull.repo_id, issueId: pull.issue_id, posterId: doerId, type: TimelineType.reviewRequest, ...who };
}

/** Asks the reviewers not yet asked; answers the REQUEST_REVIEW reviews made. */
export async function requestReviews(tx: DatabaseTransactionConnection, pull: PullRow, reviewers: readonly CheckedReviewer[], doerId: number): Promise<ReviewRow[]> {
  const made: ReviewRow[] = [];
  for (const reviewer of reviewers) {
    const last = await latestDecidingReview(tx, pull.issue_id, reviewer.id);
    if (last?.type === ReviewType.request) continue;
    if (last !== undefined && (pull.is_closed || pull.has_merged)) {
      throw CairnError.denied('cannot request review on a closed or merged pull request', { reason: 'review_request_on_closed_pull' });
    }
    if (reviewer.official) await clearOfficial(tx, pull.issue_id, reviewer.id);
    made.push(
      await insertReview(tx, {
        repoId: pull.repo_id,
        issueId: pull.issue_id,
        reviewerId: reviewer.id,
        type: ReviewType.request,
        body: '',
        commitId: '',
        official: reviewer.official,
      }),
    );
    await addReviewRequest(tx, pull.issue_id, reviewer.id);
    await insertTimelineEntries(tx, [reviewRequestEntry(pull, doerId, { assigneeId: reviewer.id })]);
  }
  return made;
}

/** Withdraws the open requests of these reviewers; answers whom it withdrew from. */
export async function cancelReviews(tx: DatabaseTransactionConnection, pull: PullRow, reviewerIds: readonly number[], doerId: number): Promise<number[]> {
  const removed: number[] = [];
  for (const id of reviewerIds) {
    const last = await latestDecidingReview(tx, pull.issue_id, id);
    if (last?.type !== ReviewType.request) continue;
    await deleteReviewRow(tx, last.id);
    await removeReviewRequest(tx, pull.issue_id, id);
    await insertTimelineEntries(tx, [reviewRequestEntry(pull, doerId, { assigneeId: id, removedAssignee: true })]);
    const latest = last.official ? await latestDecidingReview(tx, pull.issue_id, id) : undefined;
    if (latest !== undefined) await restoreOfficial(tx, latest.id);
    removed.push(id);
  }
  return removed;
}

export interface CheckedTeam {
  id: number;
  /** Gitea's AddTeamReviewRequest: the team's reviews count (IsOfficialReviewerTeam), else the asker's do. */
  official: boolean;
}

/** Gitea's team.UnitAccessMode(code) >= write. */
function teamWritesCode(team: Team): boolean {
  const writes = (mode: string | undefined): boolean => mode === 'write' || mode === 'admin' || mode === 'owner';
  return writes(team.permission) || writes(team.unitsMap['repo.code']);
}

/**
 * The organization's teams named (Gitea's parseReviewersByNames and isValidTeamReviewRequest): NOT_FOUND
 * "Team 'x' not exist" for an unknown name; adding needs a private repository's team to have access to it and the
 * viewer to be allowed to change review requests, removing the latter. None for a user's repository (Gitea ignores
 * team reviewers there).
 */
export async function checkTeams(
  context: Pick<IssuesContext, 'repos' | 'teams'>,
  access: Access,
  pull: Pick<PullRow, 'poster_id' | 'base_branch'>,
  names: readonly string[],
  add: boolean,
): Promise<CheckedTeam[]> {
  const { repository } = access;
  const wanted = [...new Set(names)];
  if (repository.ownerType !== ORGANIZATION || wanted.length === 0) return [];
  if (wanted.length > MAX_REVIEWERS) throw CairnError.invalid(`at most ${MAX_REVIEWERS} team reviewers per request`, { reason: 'too_many_reviewers' });
  // Teams are read as a site admin: the right to name them here is the repository's, as in Gitea.
  const { teams } = await context.teams.listTeams({ viewer: internalActor(repository.ownerId), org: repository.ownerName, page: { page: 1, limit: 0 } });
  const named = wanted.map((name) => {
    const team = teams.find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
    if (team === undefined) throw CairnError.notFound(`Team '${name}' not exist`, { reason: 'team_not_found' });
    return team;
  });
  const viewerId = access.viewer.id;
  const canChange = canChangeReviewRequests(access, pull.poster_id);
  if (!add) {
    if (!canChange) throw notValid("Doer can't remove reviewer", viewerId, repository.id);
    return [...new Map(named.map((team) => [team.id, { id: team.id, official: false }])).values()];
  }
  if (repository.private) {
    const { teamIds } = await context.repos.collaborators.listRepoTeams({ viewer: actorOf(access.viewer), repoId: repository.id });
    if (named.some((team) => !teamIds.includes(team.id))) throw notValid("Reviewing team can't read repo", viewerId, repository.id);
  }
  if (!canChange) throw notValid("Doer can't choose reviewer", viewerId, repository.id);
  const match = await baseBranchMatch(context, repository.id, pull.base_branch, actorOf(access.viewer));
  const checked = new Map<number, CheckedTeam>();
  for (const team of named) {
    // Gitea's IsOfficialReviewerTeam: only under a rule; its approvals list when on, else the team's code access.
    const protection = match?.protection;
    const teamOfficial =
      protection !== undefined && (protection.enableApprovalsWhitelist ? (match?.approvalsWhitelistTeamIds ?? []).includes(team.id) : teamWritesCode(team));
    checked.set(team.id, { id: team.id, official: teamOfficial || (match?.officialReviewer ?? false) });
  }
  return [...checked.values()];
}

/** Asks the teams not yet asked (Gitea's AddTeamReviewRequest); answers the REQUEST_REVIEW reviews made. */
export async function requestTeamReviews(tx: DatabaseTransactionConnection, pull: PullRow, teams: readonly CheckedTeam[], doerId: number): Promise<ReviewRow[]> {
  const made: ReviewRow[] = [];
  for (const team of teams) {
    if ((await findTeamRequest(tx, pull.issue_id, team.id)) !== undefined) continue;
    const review = await insertTeamRequest(tx, { repoId: pull.repo_id, issueId: pull.issue_id, teamId: team.id, official: team.official });
    // Gitea then clears the team's official flags, this request's included; only its answer shows it official.
    if (team.official) await clearTeamOfficial(tx, pull.issue_id, team.id);
    made.push(review);
    await insertTimelineEntries(tx, [reviewRequestEntry(pull, doerId, { assigneeTeamId: team.id })]);
  }
  return made;
}

/** Withdraws the teams' open requests (Gitea's RemoveTeamReviewRequest); answers the teams it withdrew from. */
export async function cancelTeamReviews(tx: DatabaseTransactionConnection, pull: PullRow, teams: readonly CheckedTeam[], doerId: number): Promise<number[]> {
  const removed: number[] = [];
  for (const team of teams) {
    const request = await findTeamRequest(tx, pull.issue_id, team.id);
    if (request === undefined) continue;
    await deleteReviewRow(tx, request.id);
    await insertTimelineEntries(tx, [reviewRequestEntry(pull, doerId, { assigneeTeamId: team.id, removedAssignee: true })]);
    removed.push(team.id);
  }
  return removed;
}
