/** The `repositories` table with each row's enabled units: reads, and the row as handlers see it (`RepoRow`). */
import { REPO_UNITS } from '@cairn/config';
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection, type SqlToken, type ValueExpression } from '@cairn/db';
import type { Visibility } from '../domain/access';

const VISIBILITIES = ['public', 'limited', 'private'] as const;

export const repositoryRow = z.object({
  id: z.number(),
  owner_id: z.number(),
  owner_name: z.string(),
  owner_type: z.number(),
  owner_visibility: z.enum(VISIBILITIES),
  name: z.string(),
  description: z.string(),
  website: z.string(),
  is_private: z.boolean(),
  is_template: z.boolean(),
  is_fork: z.boolean(),
  fork_id: z.number(),
  is_mirror: z.boolean(),
  mirror_interval: z.string(),
  original_url: z.string(),
  mirror_updated: z.date().nullable(),
  is_empty: z.boolean(),
  is_archived: z.boolean(),
  archived_at: z.date().nullable(),
  size: z.number(),
  default_branch: z.string(),
  object_format_name: z.string(),
  trust_model: z.string(),
  num_forks: z.number(),
  num_stars: z.number(),
  num_watches: z.number(),
  num_open_issues: z.number(),
  num_open_pulls: z.number(),
  num_releases: z.number(),
  branch_count: z.number(),
  licenses: z.array(z.string()),
  topics: z.array(z.string()),
  storage: z.string(),
  allow_merge_commits: z.boolean(),
  allow_rebase: z.boolean(),
  allow_rebase_explicit: z.boolean(),
  allow_squash_merge: z.boolean(),
  allow_fast_forward_only_merge: z.boolean(),
  allow_rebase_update: z.boolean(),
  allow_manual_merge: z.boolean(),
  autodetect_manual_merge: z.boolean(),
  default_delete_branch_after_merge: z.boolean(),
  default_merge_style: z.string(),
  default_allow_maintainer_edit: z.boolean(),
  ignore_whitespace_conflicts: z.boolean(),
  enable_time_tracker: z.boolean(),
  allow_only_contributors_to_track_time: z.boolean(),
  enable_issue_dependencies: z.boolean(),
  projects_mode: z.string(),
  created: z.date(),
  updated: z.date(),
});

const pendingTransferRow = z.object({
  doer_id: z.number(),
  recipient_id: z.number(),
  team_ids: z.array(z.number()),
  created: z.string(),
});

const rowWithUnits = repositoryRow.extend({ units: z.array(z.string()), pending_transfer: pendingTransferRow.nullable() });

/** A transfer waiting for its recipient. */
export interface PendingTransferRow {
  doerId: number;
  recipientId: number;
  teamIds: number[];
  created: Date;
}

/** Pull-request settings (Gitea's PullRequestsConfig). */
export interface PullRequestSettings {
  allowMergeCommits: boolean;
  allowRebase: boolean;
  allowRebaseExplicit: boolean;
  allowSquashMerge: boolean;
  allowFastForwardOnlyMerge: boolean;
  allowRebaseUpdate: boolean;
  allowManualMerge: boolean;
  autodetectManualMerge: boolean;
  defaultDeleteBranchAfterMerge: boolean;
  defaultMergeStyle: string;
  defaultAllowMaintainerEdit: boolean;
  ignoreWhitespaceConflicts: boolean;
}

/** Issue-tracker settings (Gitea's IssuesConfig) and the projects unit's mode. */
export interface TrackerSettings {
  enableTimeTracker: boolean;
  allowOnlyContributorsToTrackTime: boolean;
  enableIssueDependencies: boolean;
  projectsMode: string;
}

/** A repository as stored, with its enabled units. */
export interface RepoRow extends PullRequestSettings, TrackerSettings {
  id: number;
  ownerId: number;
  ownerName: string;
  /** 0: a user, 1: an organization. */
  ownerType: number;
  ownerVisibility: Visibility;
  name: string;
  description: string;
  website: string;
  isPrivate: boolean;
  isTemplate: boolean;
  isFork: boolean;
  /** The fork's base; 0 when none. */
  forkId: number;
  isMirror: boolean;
  mirrorInterval: string;
  /** An import's source without credentials; '' for others. */
  originalUrl: string;
  mirrorUpdated: Date | null;
  isEmpty: boolean;
  isArchived: boolean;
  archivedAt: Date | null;
  size: number;
  defaultBranch: string;
  objectFormatName: string;
  trustModel: string;
  numForks: number;
  numStars: number;
  numWatches: number;
  numOpenIssues: number;
  numOpenPulls: number;
  numReleases: number;
  branchCount: number;
  /** SPDX ids of the default branch's licence files. */
  licenses: string[];
  topics: string[];
  /** git-storage shard; '' is the default one. */
  storage: string;
  created: Date;
  updated: Date;
  /** Enabled unit keys, in unit order. */
  units: string[];
  pendingTransfer: PendingTransferRow | null;
}

/** Unit keys in Gitea's unit order. */
export function sortUnits(units: readonly string[]): string[] {
  const order = (unit: string): number => {
    const index = (REPO_UNITS as readonly string[]).indexOf(unit);
    return index < 0 ? REPO_UNITS.length : index;
  };
  return [...units].sort((a, b) => order(a) - order(b) || a.localeCompare(b));
}

function toRepoRow(row: z.infer<typeof rowWithUnits>): RepoRow {
  const transfer = row.pending_transfer;
  return {
    id: row.id,
    ownerId: row.owner_id,
    ownerName: row.owner_name,
    ownerType: row.owner_type,
    ownerVisibility: row.owner_visibility,
    name: row.name,
    description: row.description,
    website: row.website,
    isPrivate: row.is_private,
    isTemplate: row.is_template,
    isFork: row.is_fork,
    forkId: row.fork_id,
    isMirror: row.is_mirror,
    mirrorInterval: row.mirror_interval,
    originalUrl: row.original_url,
    mirrorUpdated: row.mirror_updated,
    isEmpty: row.is_empty,
    isArchived: row.is_archived,
    archivedAt: row.archived_at,
    size: row.size,
    defaultBranch: row.default_branch,
    objectFormatName: row.object_format_name,
    trustModel: row.trust_model,
    numForks: row.num_forks,
    numStars: row.num_stars,
    numWatches: row.num_watches,
    numOpenIssues: row.num_open_issues,
    numOpenPulls: row.num_open_pulls,
    numReleases: row.num_releases,
    branchCount: row.branch_count,
    licenses: row.licenses,
    topics: row.topics,
    storage: row.storage,
    allowMergeCommits: row.allow_merge_commits,
    allowRebase: row.allow_rebase,
    allowRebaseExplicit: row.allow_rebase_explicit,
    allowSquashMerge: row.allow_squash_merge,
    allowFastForwardOnlyMerge: row.allow_fast_forward_only_merge,
    allowRebaseUpdate: row.allow_rebase_update,
    allowManualMerge: row.allow_manual_merge,
    autodetectManualMerge: row.autodetect_manual_merge,
    defaultDeleteBranchAfterMerge: row.default_delete_branch_after_merge,
    defaultMergeStyle: row.default_merge_style,
    defaultAllowMaintainerEdit: row.default_allow_maintainer_edit,
    ignoreWhitespaceConflicts: row.ignore_whitespace_conflicts,
    enableTimeTracker: row.enable_time_tracker,
    allowOnlyContributorsToTrackTime: row.allow_only_contributors_to_track_time,
    enableIssueDependencies: row.enable_issue_dependencies,
    projectsMode: row.projects_mode,
    created: row.created,
    updated: row.updated,
    units: sortUnits(row.units),
    pendingTransfer:
      transfer === null
        ? null
        : { doerId: transfer.doer_id, recipientId: transfer.recipient_id, teamIds: transfer.team_ids, created: new Date(transfer.created) },
  };
}

/** `r.<column>, …, units, pending_transfer`: the select list of a repository read, `r` being `repositories`. */
export const REPO_SELECT: SqlToken = sql.fragment`${sql.join(
  Object.keys(repositoryRow.shape).map((name) => sql.identifier(['r', name])),
  sql.fragment`, `,
)},
  ARRAY(SELECT u.unit_key FROM repo_units u WHERE u.repo_id = r.id) AS units,
  (SELECT json_build_object('doer_id', t.doer_id, 'recipient_id', t.recipient_id, 'team_ids', t.team_ids, 'created', t.created)
     FROM repo_transfers t WHERE t.repo_id = r.id) AS pending_transfer`;

/** Reads repositories: `where` and `tail` (ORDER BY / LIMIT) refer to `repositories r`. */
export async function selectRepositories(db: CommonQueryMethods, where: SqlToken, tail: SqlToken = sql.fragment``): Promise<RepoRow[]> {
  const rows = await db.any(sql.type(rowWithUnits)`SELECT ${REPO_SELECT} FROM repositories r WHERE ${where} ${tail}`);
  return rows.map(toRepoRow);
}

export async function findRepository(db: CommonQueryMethods, id: number): Promise<RepoRow | undefined> {
  const [row] = await selectRepositories(db, sql.fragment`r.id = ${id}`);
  return row;
}

/** The row locked for an update in `tx` (FOR UPDATE). */
export async function lockRepository(db: CommonQueryMethods, id: number): Promise<RepoRow | undefined> {
  const [row] = await selectRepositories(db, sql.fragment`r.id = ${id}`, sql.fragment`FOR UPDATE OF r`);
  return row;
}

export function findRepositories(db: CommonQueryMethods, ids: readonly number[]): Promise<RepoRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return selectRepositories(db, sql.fragment`r.id = ANY(${sql.array([...ids], 'int8')})`, sql.fragment`ORDER BY r.id`);
}

/** By the owner's current name as last recorded and the repository's name, both case-insensitive. */
export async function findByOwnerName(db: CommonQueryMethods, ownerName: string, name: string): Promise<RepoRow | undefined> {
  const [row] = await selectRepositories(
    db,
    sql.fragment`r.lower_owner_name = ${ownerName.toLowerCase()} AND r.lower_name = ${name.toLowerCase()}`,
  );
  return row;
}

export async function findByOwnerId(db: CommonQueryMethods, ownerId: number, name: string): Promise<RepoRow | undefined> {
  const [row] = await selectRepositories(db, sql.fragment`r.owner_id = ${ownerId} AND r.lower_name = ${name.toLowerCase()}`);
  return row;
}

/** The owner's facts every row keeps (accounts owns them; events keep them current). */
export interface OwnerFacts {
  ownerId: number;
  ownerName: string;
  ownerType: number;
  ownerVisibility: Visibility;
}

export interface NewRepository extends OwnerFacts {
  /** Reserved beforehand (purges.ts reserveRepositoryId), so its git data can be made before the row exists. */
  id: number;
  name: string;
  description: string;
  website: string;
  isPrivate: boolean;
  isTemplate: boolean;
  isFork: boolean;
  forkId: number;
  isEmpty: boolean;
  defaultBranch: string;
  objectFormatName: string;
  trustModel: string;
  units: readonly string[];
  /** An import's (CreateRepository with `mirror`, `original_url`); absent: not a mirror, no source. */
  mirror?: { interval: string };
  originalUrl?: string;
}

/** Inserts the repository and its units; a taken name fails with repositories_owner_id_lower_name_key. */
export async function insertRepository(tx: DatabaseTransactionConnection, repo: NewRepository): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO repositories (id, owner_id, owner_name, lower_owner_name, owner_type, owner_visibility, name, lower_name,
                              description, website, is_private, is_template, is_fork, fork_id, is_empty, default_branch,
                              object_format_name, trust_model, is_mirror, mirror_interval, original_url)
    VALUES (${repo.id}, ${repo.ownerId}, ${repo.ownerName}, ${repo.ownerName.toLowerCase()}, ${repo.ownerType}, ${repo.ownerVisibility},
            ${repo.name}, ${repo.name.toLowerCase()}, ${repo.description}, ${repo.website}, ${repo.isPrivate}, ${repo.isTemplate},
            ${repo.isFork}, ${repo.forkId}, ${repo.isEmpty}, ${repo.defaultBranch}, ${repo.objectFormatName}, ${repo.trustModel},
            ${repo.mirror !== undefined}, ${repo.mirror?.interval ?? ''}, ${repo.originalUrl ?? ''})
  `);
  await enableUnits(tx, repo.id, repo.units);
}

export async function enableUnits(tx: DatabaseTransactionConnection, repoId: number, units: readonly string[]): Promise<void> {
  if (units.length === 0) return;
  await tx.query(sql.unsafe`
    INSERT INTO repo_units (repo_id, unit_key)
    SELECT ${repoId}, unit_key FROM unnest(${sql.array([...units], 'text')}) AS u(unit_key)
    ON CONFLICT (repo_id, unit_key) DO NOTHING
  `);
}

export async function disableUnits(tx: DatabaseTransactionConnection, repoId: number, units: readonly string[]): Promise<void> {
  if (units.length === 0) return;
  await tx.query(sql.unsafe`DELETE FROM repo_units WHERE repo_id = ${repoId} AND unit_key = ANY(${sql.array([...units], 'text')})`);
}

/** The columns an update may set, by RepoRow field. */
const CHANGEABLE_COLUMNS = {
  description: 'description',
  website: 'website',
  isPrivate: 'is_private',
  isTemplate: 'is_template',
  isArchived: 'is_archived',
  archivedAt: 'archived_at',
  isEmpty: 'is_empty',
  size: 'size',
  branchCount: 'branch_count',
  licenses: 'licenses',
  defaultBranch: 'default_branch',
  mirrorInterval: 'mirror_interval',
  allowMergeCommits: 'allow_merge_commits',
  allowRebase: 'allow_rebase',
  allowRebaseExplicit: 'allow_rebase_explicit',
  allowSquashMerge: 'allow_squash_merge',
  allowFastForwardOnlyMerge: 'allow_fast_forward_only_merge',
  allowRebaseUpdate: 'allow_rebase_update',
  allowManualMerge: 'allow_manual_merge',
  autodetectManualMerge: 'autodetect_manual_merge',
  defaultDeleteBranchAfterMerge: 'default_delete_branch_after_merge',
  defaultMergeStyle: 'default_merge_style',
  defaultAllowMaintainerEdit: 'default_allow_maintainer_edit',
  ignoreWhitespaceConflicts: 'ignore_whitespace_conflicts',
  enableTimeTracker: 'enable_time_tracker',
  allowOnlyContributorsToTrackTime: 'allow_only_contributors_to_track_time',
  enableIssueDependencies: 'enable_issue_dependencies',
  projectsMode: 'projects_mode',
} as const satisfies Partial<Record<keyof RepoRow, string>>;

export type RepoChanges = Partial<Pick<RepoRow, keyof typeof CHANGEABLE_COLUMNS>> & { name?: string };

function dateValue(value: Date | null): ValueExpression {
  return value === null ? null : sql.timestamp(value);
}

/** Applies `changes` (and bumps `updated`); a taken name fails with repositories_owner_id_lower_name_key. */
export async function updateRepository(tx: DatabaseTransactionConnection, id: number, changes: RepoChanges): Promise<void> {
  const assignments: SqlToken[] = [sql.fragment`updated = now()`];
  if (changes.name !== undefined) {
    assignments.push(sql.fragment`name = ${changes.name}`, sql.fragment`lower_name = ${changes.name.toLowerCase()}`);
  }
  for (const [field, column] of Object.entries(CHANGEABLE_COLUMNS) as [keyof typeof CHANGEABLE_COLUMNS, string][]) {
    const value = changes[field];
    if (value === undefined) continue;
    const expression: ValueExpression =
      value instanceof Date || value === null ? dateValue(value) : Array.isArray(value) ? sql.array(value, 'text') : value;
    assignments.push(sql.fragment`${sql.identifier([column])} = ${expression}`);
  }
  await tx.query(sql.unsafe`UPDATE repositories SET ${sql.join(assignments, sql.fragment`, `)} WHERE id = ${id}`);
}

/** Moves the repository to a new owner. */
export async function setOwner(tx: DatabaseTransactionConnection, id: number, owner: OwnerFacts): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE repositories
    SET owner_id = ${owner.ownerId}, owner_name = ${owner.ownerName}, lower_owner_name = ${owner.ownerName.toLowerCase()},
        owner_type = ${owner.ownerType}, owner_visibility = ${owner.ownerVisibility}, updated = now()
    WHERE id = ${id}
  `);
}

/** Records an owner's new name on all of its repositories. */
export async function renameOwner(tx: CommonQueryMethods, ownerId: number, ownerName: string): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE repositories SET owner_name = ${ownerName}, lower_owner_name = ${ownerName.toLowerCase()}
    WHERE owner_id = ${ownerId} AND owner_name <> ${ownerName}
  `);
}

export async function setOwnerVisibility(tx: DatabaseTransactionConnection, ownerId: number, visibility: Visibility): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE repositories SET owner_visibility = ${visibility} WHERE owner_id = ${ownerId} AND owner_visibility <> ${visibility}
  `);
}

/**
 * Makes the forks below a repository follow its privacy (Gitea's `UpdateRepository` with visibility changed): each
 * fork is private when its base is or when its own owner is private.
 */
export async function syncForkPrivacy(tx: DatabaseTransactionConnection, baseId: number, isPrivate: boolean): Promise<void> {
  await tx.query(sql.unsafe`
    WITH RECURSIVE forks AS (
      SELECT id FROM repositories WHERE fork_id = ${baseId}
      UNION
      SELECT r.id FROM repositories r JOIN forks f ON r.fork_id = f.id
    )
    UPDATE repositories SET is_private = ${isPrivate} OR owner_visibility = 'private', updated = now()
    WHERE id IN (SELECT id FROM forks) AND is_private <> (${isPrivate} OR owner_visibility = 'private')
  `);
}

export async function countOwnerRepositories(db: CommonQueryMethods, ownerId: number): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM repositories WHERE owner_id = ${ownerId}`);
}

/**
 * Records a pull mirror's sync time: `mirror_updated` only moves forward (a late report of an older sync changes
 * nothing). Answers whether the repository exists and is a mirror.
 */
export async function recordMirrorSync(db: CommonQueryMethods, id: number, syncedAt: Date): Promise<'recorded' | 'not_mirror' | 'missing'> {
  const row = await db.maybeOne(sql.type(z.object({ is_mirror: z.boolean() }))`
    WITH moved AS (
      UPDATE repositories SET mirror_updated = GREATEST(coalesce(mirror_updated, ${sql.timestamp(syncedAt)}), ${sql.timestamp(syncedAt)})
      WHERE id = ${id} AND is_mirror RETURNING id
    )
    SELECT is_mirror FROM repositories WHERE id = ${id}`);
  if (row === null) return 'missing';
  return row.is_mirror ? 'recorded' : 'not_mirror';
}

export async function addForkCount(tx: DatabaseTransactionConnection, id: number, delta: number): Promise<void> {
  await tx.query(sql.unsafe`UPDATE repositories SET num_forks = GREATEST(num_forks + ${delta}, 0) WHERE id = ${id}`);
}

/** The user's fork of `baseId`, if they have one. */
export async function findFork(db: CommonQueryMethods, baseId: number, ownerId: number): Promise<RepoRow | undefined> {
  const [row] = await selectRepositories(db, sql.fragment`r.fork_id = ${baseId} AND r.owner_id = ${ownerId}`, sql.fragment`LIMIT 1`);
  return row;
}

/**
 * Deletes the repository row (units, collaborations, team links, redirects and transfer go with it). Its forks stay,
 * no longer forks (Gitea), and its base loses a fork.
 */
export async function deleteRepository(tx: DatabaseTransactionConnection, repo: Pick<RepoRow, 'id' | 'isFork' | 'forkId'>): Promise<void> {
  await tx.query(sql.unsafe`UPDATE repositories SET is_fork = false, fork_id = 0 WHERE fork_id = ${repo.id}`);
  if (repo.isFork && repo.forkId > 0) await addForkCount(tx, repo.forkId, -1);
  await tx.query(sql.unsafe`DELETE FROM repositories WHERE id = ${repo.id}`);
}

export function repositoriesOwnedBy(db: CommonQueryMethods, ownerId: number): Promise<RepoRow[]> {
  return selectRepositories(db, sql.fragment`r.owner_id = ${ownerId}`, sql.fragment`ORDER BY r.id FOR UPDATE OF r`);
}
