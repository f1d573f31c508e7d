/**
 * UpdateRepository (Gitea's routers/api/v1/repo/repo.go `Edit`): every field that is set, validated first and then
 * applied in one transaction. Pull-request settings apply while the pulls unit is on, tracker settings while the
 * issues unit is, the projects mode while projects are; `default_branch` only names a branch that exists (any name
 * while the repository is empty) and is otherwise ignored, as Gitea does.
 */
import type { UpdateRepositoryRequest, UpdateRepositoryResponse } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code } from '@cairn/rpc';
import { viewerFromActor, type Viewer } from '../domain/access';
import { mirrorInterval } from '../domain/durations';
import { assertUsableRepoName } from '../domain/repo-name';
import { applyUnitChanges, unitChanges, type UnitChanges } from '../domain/units';
import { enqueueRepoRenamed, enqueueRepoUpdated } from '../events/outbox';
import { addRedirect, deleteRedirect } from '../store/redirects';
import {
  disableUnits,
  enableUnits,
  findByOwnerId,
  findRepository,
  lockRepository,
  syncForkPrivacy,
  updateRepository,
  type PullRequestSettings,
  type RepoChanges,
  type RepoRow,
  type TrackerSettings,
} from '../store/repositories';
import type { ReposContext } from './context';
import { guard } from './guard';
import { loadRepoForViewer, permissionFor, repoArchived, requireAccess } from './repo-access';
import { gitRepository, withPermission } from './repository-message';

const MERGE_STYLES = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only', 'manually-merged'];
const PROJECTS_MODES = ['all', 'repo', 'owner'];

/** Request field → RepoRow field, for the pull-request settings. */
const PULL_FIELDS = [
  'allowMergeCommits',
  'allowRebase',
  'allowRebaseExplicit',
  'allowSquashMerge',
  'allowFastForwardOnlyMerge',
  'allowRebaseUpdate',
  'allowManualMerge',
  'autodetectManualMerge',
  'defaultDeleteBranchAfterMerge',
  'defaultMergeStyle',
  'defaultAllowMaintainerEdit',
  'ignoreWhitespaceConflicts',
] as const satisfies readonly (keyof PullRequestSettings & keyof UpdateRepositoryRequest)[];

const TRACKER_FIELDS = ['enableTimeTracker', 'allowOnlyContributorsToTrackTime', 'enableIssueDependencies'] as const satisfies readonly (keyof TrackerSettings &
  keyof UpdateRepositoryRequest)[];

/** The request's settable fields other than `archived` and `units`. */
const SETTABLE_FIELDS = [
  'name',
  'description',
  'website',
  'private',
  'template',
  'defaultBranch',
  'mirrorInterval',
  ...PULL_FIELDS,
  ...TRACKER_FIELDS,
  'projectsMode',
] as const satisfies readonly (keyof UpdateRepositoryRequest)[];

/** A request field's proto name, for `changed` in cairn.repo.updated. */
function protoName(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Whether the request asks for anything but (un)archiving. */
function changesMoreThanArchiving(request: UpdateRepositoryRequest): boolean {
  return SETTABLE_FIELDS.some((field) => request[field] !== undefined) || Object.keys(request.units).length > 0;
}

interface PlannedUpdate {
  changes: RepoChanges;
  units: UnitChanges;
  /** Proto names of what changes. */
  changed: string[];
  /** A branch to point HEAD at. */
  setHead?: string;
}

/** Whether git-storage would accept `branch` as the new default (it exists, or the repository has no branch yet). */
async function branchUsable(context: ReposContext, repo: RepoRow, branch: string): Promise<boolean> {
  const repository = gitRepository(repo);
  const info = await context.git.repositories.getRepositoryInfo({ repository });
  if (info.empty) return true;
  try {
    await context.git.refs.getBranch({ repository, name: branch });
    return true;
  } catch (error) {
    if (error instanceof CairnError && (error.code === Code.NOT_FOUND || error.code === Code.INVALID_ARGUMENT)) return false;
    throw error;
  }
}

async function plan(context: ReposContext, viewer: Viewer, repo: RepoRow, request: UpdateRepositoryRequest): Promise<PlannedUpdate> {
  const { config } = context;
  const changes: RepoChanges = {};
  const changed: string[] = [];
  const set = <K extends keyof RepoChanges>(field: K, value: RepoChanges[K], current: unknown, name: string): void => {
    if (value === undefined || value === current) return;
    changes[field] = value;
    changed.push(name);
  };

  if (request.name !== undefined && request.name !== repo.name) {
    const name = request.name.trim();
    assertUsableRepoName(name);
    if (name.toLowerCase() !== repo.name.toLowerCase() && (await findByOwnerId(context.db.pool, repo.ownerId, name)) !== undefined) {
      throw CairnError.invalid(`repository already exists [uname: ${repo.ownerName}, name: ${name}]`, { reason: 'repo_exists' });
    }
    set('name', name, repo.name, 'name');
  }
  set('description', request.description, repo.description, 'description');
  set('website', request.website, repo.website, 'website');
  set('isTemplate', request.template, repo.isTemplate, 'template');

  if (request.private !== undefined) {
    // A fork's visibility follows its base.
    const base = repo.isFork && repo.forkId > 0 ? await findRepository(context.db.pool, repo.forkId) : undefined;
    const isPrivate = base?.isPrivate ?? request.private;
    if (isPrivate !== repo.isPrivate && config.repository.forcePrivate && !isPrivate && !viewer.isAdmin) {
      throw CairnError.invalid('cannot change private repository to public', { reason: 'force_private' });
    }
    set('isPrivate', isPrivate, repo.isPrivate, 'private');
  }

  if (request.archived !== undefined && request.archived !== repo.isArchived) {
    if (repo.isMirror) throw CairnError.invalid('repo is a mirror, cannot archive/un-archive', { reason: 'repo_is_mirror' });
    changes.isArchived = request.archived;
    changes.archivedAt = request.archived ? new Date() : null;
    changed.push('archived');
  }

  if (request.mirrorInterval !== undefined) {
    if (!repo.isMirror) throw CairnError.invalid('repo is not a mirror, can not change mirror interval', { reason: 'not_mirror' });
    set('mirrorInterval', mirrorInterval(request.mirrorInterval, config.mirror.minInterval), repo.mirrorInterval, 'mirror_interval');
  }

  const units = unitChanges(repo.units, request.units, config.repository);
  if (units.enable.length > 0 || units.disable.length > 0) changed.push('units');
  const unitsAfter = applyUnitChanges(repo.units, units);

  if (request.defaultMergeStyle !== undefined && !MERGE_STYLES.includes(request.defaultMergeStyle)) {
    throw CairnError.invalid(`invalid default merge style: ${request.defaultMergeStyle}`, { reason: 'merge_style_invalid' });
  }
  if (unitsAfter.includes('repo.pulls')) {
    for (const field of PULL_FIELDS) set(field, request[field], repo[field], protoName(field));
  }
  if (unitsAfter.includes('repo.issues')) {
    for (const field of TRACKER_FIELDS) set(field, request[field], repo[field], protoName(field));
  }
  if (request.projectsMode !== undefined && request.projectsMode !== '') {
    if (!PROJECTS_MODES.includes(request.projectsMode)) {
      throw CairnError.invalid(`invalid projects mode: ${request.projectsMode}`, { reason: 'projects_mode_invalid' });
    }
    if (unitsAfter.includes('repo.projects')) set('projectsMode', request.projectsMode, repo.projectsMode, 'projects_mode');
  }

  let setHead: string | undefined;
  const branch = request.defaultBranch?.trim();
  if (branch !== undefined && branch !== '' && branch !== repo.defaultBranch && (await branchUsable(context, repo, branch))) {
    setHead = branch;
    set('defaultBranch', branch, repo.defaultBranch, 'default_branch');
  }
  return { changes, units, changed, setHead };
}

export async function updateRepositoryHandler(context: ReposContext, request: UpdateRepositoryRequest): Promise<UpdateRepositoryResponse> {
  const viewer = viewerFromActor(request.actor);
  const { repo, permission } = await loadRepoForViewer(context, viewer, request.id);
  requireAccess(permission, { mode: 'admin', archived: 'allow' }, repo);
  // Only un-archiving may touch an archived repository (it may change more in the same request).
  if (repo.isArchived && request.archived !== false && changesMoreThanArchiving(request)) throw repoArchived(repo);
  const planned = await plan(context, viewer, repo, request);
  if (planned.changed.length === 0) return { repository: withPermission(repo, permission) };

  const updated = await guard(() =>
    context.db.pool.transaction(async (tx) => {
      const locked = await lockRepository(tx, repo.id);
      if (locked === undefined) throw CairnError.notFound('not found', { reason: 'repo_not_found' });
      await updateRepository(tx, repo.id, planned.changes);
      await enableUnits(tx, repo.id, planned.units.enable);
      await disableUnits(tx, repo.id, planned.units.disable);
      if (planned.changes.name !== undefined) {
        await deleteRedirect(tx, repo.ownerId, planned.changes.name);
        if (planned.changes.name.toLowerCase() !== locked.name.toLowerCase()) await addRedirect(tx, repo.ownerId, locked.name, repo.id);
      }
      if (planned.changes.isPrivate !== undefined) await syncForkPrivacy(tx, repo.id, planned.changes.isPrivate);
      if (planned.setHead !== undefined) {
        await context.git.repositories.setDefaultBranch({ repository: gitRepository(repo), branch: planned.setHead });
      }
      const after = (await findRepository(tx, repo.id))!;
      await enqueueRepoUpdated(tx, after, planned.changed, viewer.id);
      if (planned.changes.name !== undefined) await enqueueRepoRenamed(tx, after, locked.name, viewer.id);
      return after;
    }),
  );
  return { repository: withPermission(updated, await permissionFor(context, viewer, updated)) };
}
