/**
 * Gitea's issue-level permission rules (services/context/repo.go CanWriteIssuesOrPulls, routers/api/v1/repo/
 * issue*.go), decided from the RepoScope the gateway hands over: repos decided the viewer's mode per unit once for
 * the request; this module turns it into what the viewer may do with issues. Every issues RPC goes through here.
 */
import type { RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, type Viewer, viewerFromActor } from '@cairn/rpc';

export const UNIT_ISSUES = 'repo.issues';
export const UNIT_PULLS = 'repo.pulls';

const MODES: readonly string[] = ['none', 'read', 'write', 'admin', 'owner'];

/** `none|read|write|admin|owner` as 0…4; anything else is 0. */
function level(name: string | undefined): number {
  const index = MODES.indexOf(name ?? 'none');
  return index < 0 ? 0 : index;
}

const READ = 1;
const WRITE = 2;
const ADMIN = 3;

/** A scope as the issues service uses it: the viewer, the repository and the viewer's unit modes. */
export interface Access {
  viewer: Viewer;
  repository: Repository;
  /** Overall mode, 0…4. */
  mode: number;
  /** Unit key → mode, 0…4 (disabled units are absent). */
  units: ReadonlyMap<string, number>;
}

/** The RepoScope of a request; a request without a repository is INVALID_ARGUMENT. */
export function accessOf(scope: RepoScope | undefined): Access {
  const repository = scope?.repository?.repository;
  const permission = scope?.repository?.permission;
  if (repository === undefined || permission === undefined || repository.id <= 0) throw CairnError.invalid('scope.repository is required');
  const enabled = new Set(repository.units.map((unit) => unit.key));
  const units = new Map<string, number>();
  for (const key of enabled) units.set(key, level(permission.units[key]));
  return { viewer: viewerFromActor(scope?.viewer), repository, mode: level(permission.accessMode), units };
}

function unitLevel(access: Access, unit: string): number {
  // Repository admins (and site admins, whom repos gives `owner`) have every enabled unit.
  if (!access.units.has(unit)) return 0;
  return Math.max(access.units.get(unit) ?? 0, access.mode >= ADMIN ? access.mode : 0);
}

function unitOf(isPull: boolean): string {
  return isPull ? UNIT_PULLS : UNIT_ISSUES;
}

/** The viewer may read issues (or pull requests): the unit is enabled and readable. */
export function canRead(access: Access, isPull = false): boolean {
  return unitLevel(access, unitOf(isPull)) >= READ;
}

/** Gitea's CanWriteIssuesOrPulls. */
export function canWrite(access: Access, isPull = false): boolean {
  return unitLevel(access, unitOf(isPull)) >= WRITE;
}

/**
 * Gitea's CanBeAssigned (models/perm/access/repo_permission.go), for `access` as the would-be assignee's own: write
 * on any unit, or read on pull requests (on a public repository, anyone signed in reads them).
 */
export function canBeAssigned(access: Access): boolean {
  return [...access.units.keys()].some((unit) => unitLevel(access, unit) >= WRITE) || unitLevel(access, UNIT_PULLS) >= READ;
}

/** Repository administrators (reqAdmin) and site admins. */
export function isRepoAdmin(access: Access): boolean {
  return access.mode >= ADMIN || access.viewer.isAdmin;
}

/** Readable issues unit (or pulls), else NOT_FOUND: hidden and missing look the same. */
export function requireRead(access: Access, isPull = false): void {
  if (!canRead(access, isPull)) throw CairnError.notFound();
}

/** Read access to either unit (Gitea's reqRepoReader(issues, pulls) for labels and milestones). */
export function requireReadEither(access: Access): void {
  if (!canRead(access, false) && !canRead(access, true)) throw CairnError.notFound();
}

/** Write access to either unit (reqRepoWriter(issues, pulls)), else PERMISSION_DENIED. */
export function requireWriteEither(access: Access): void {
  requireReadEither(access);
  if (!canWrite(access, false) && !canWrite(access, true)) throw CairnError.denied('user should have a permission to write to a repo');
}

/** A signed-in viewer (the gateway checks tokens first; this is the service's own guard). */
export function requireSignedIn(access: Access): number {
  if (access.viewer.id <= 0) throw CairnError.unauthenticated('token is required');
  return access.viewer.id;
}

/** Archived repositories take no change (the gateway answers 423). */
export function requireNotArchived(access: Access): void {
  if (access.repository.archived) {
    throw CairnError.precondition(`${access.repository.ownerName}/${access.repository.name} is archived`, { reason: 'archived' });
  }
}

/** Gitea's IsTimetrackerEnabled: `[service] ENABLE_TIMETRACKING` (`siteEnabled`) and the repository's own switch. */
export function isTimeTrackerEnabled(access: Access, siteEnabled = true): boolean {
  return siteEnabled && access.repository.enableTimeTracker;
}

/**
 * Gitea's CanUseTimetracker: the time tracker is on, and either anyone may track time or the viewer writes issues,
 * posted this one or is assigned to it.
 */
export function canTrackTime(access: Access, issue: { isPull: boolean; posterId: number; assigned?: boolean }, siteEnabled = true): boolean {
  if (!isTimeTrackerEnabled(access, siteEnabled)) return false;
  if (!access.repository.allowOnlyContributorsToTrackTime) return true;
  return canWrite(access, issue.isPull) || (access.viewer.id > 0 && issue.posterId === access.viewer.id) || issue.assigned === true;
}

export const UNIT_CODE = 'repo.code';

/** The viewer may read the repository's code (a pull request's head repository must be readable so). */
export function canReadCode(access: Access): boolean {
  return unitLevel(access, UNIT_CODE) >= READ;
}

/** The viewer writes the repository's code (Gitea's official reviewers, without branch protection's lists). */
export function canWriteCode(access: Access): boolean {
  return unitLevel(access, UNIT_CODE) >= WRITE;
}
