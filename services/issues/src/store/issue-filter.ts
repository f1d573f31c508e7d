/**
 * Gitea's issue filters as SQL conditions over `issues i`, shared by a repository's filtered list and the
 * cross-repository search, and the resolution of the label and milestone names they give. What Gitea resolves
 * before filtering is resolved first here too (routers/api/v1/repo/issue.go): label and milestone names that name
 * nothing are discarded, and when none is left there is no such filter ("Non existent labels are discarded").
 */
import { sql, z, type CommonQueryMethods, type FragmentSqlToken } from '@cairn/db';

export interface IssueConditions {
  /** is_closed values to keep. */
  states: readonly boolean[];
  /** is_pull values to keep. */
  kinds: readonly boolean[];
  /**
   * Names of existing labels: `all` (a repository's list, Gitea's IncludedLabelIDs) keeps issues carrying a label of
   * each name, `any` (the search, IncludedAnyLabelIDs) issues carrying one of them. Unset: no label filter.
   */
  labels: { names: readonly string[]; match: 'all' | 'any' } | undefined;
  /** An issue in any of these milestones matches. Unset: no milestone filter. */
  milestoneIds: readonly number[] | undefined;
  /** Keyword in the title, the body or a comment; a number also finds the issue of that index. */
  keyword: string;
  /** Updated at or after `since`, at or before `before` (whole seconds, as Gitea compares Unix times). */
  since: Date | undefined;
  before: Date | undefined;
  posterId: number;
  assigneeId: number;
  mentionedId: number;
  reviewRequestedId: number;
  /** The teams of `reviewRequestedId` (their open team review requests count too, as in Gitea). */
  reviewRequestedTeamIds: readonly number[];
  reviewedId: number;
}

/** `%keyword%` for ILIKE, the keyword's own `%`, `_` and `\` taken literally. */
export function containsPattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, '\\$&')}%`;
}

/** A time cut to the second below (Gitea's timestamps are Unix seconds). */
function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/** The conditions, AND-ed; `repoScope` limits subqueries on comments to the repositories searched. */
export function issueConditions(filter: IssueConditions, repoScope: FragmentSqlToken): FragmentSqlToken[] {
  const conditions: FragmentSqlToken[] = [];
  if (filter.states.length === 1) conditions.push(sql.fragment`i.is_closed = ${filter.states[0]}`);
  if (filter.kinds.length === 1) conditions.push(sql.fragment`i.is_pull = ${filter.kinds[0]}`);
  if (filter.labels !== undefined) {
    const { names, match } = filter.labels;
    const carries = (name: FragmentSqlToken) =>
      sql.fragment`EXISTS (SELECT 1 FROM issue_labels il JOIN labels l ON l.id = il.label_id WHERE il.issue_id = i.id AND ${name})`;
    if (match === 'any') conditions.push(carries(sql.fragment`l.name = ANY(${sql.array([...names], 'text')})`));
    else for (const name of new Set(names)) conditions.push(carries(sql.fragment`l.name = ${name}`));
  }
  if (filter.milestoneIds !== undefined) conditions.push(sql.fragment`i.milestone_id = ANY(${sql.array([...filter.milestoneIds], 'int8')})`);
  if (filter.keyword !== '') {
    const pattern = containsPattern(filter.keyword);
    const index = /^\d{1,15}$/.test(filter.keyword) ? Number(filter.keyword) : 0;
    conditions.push(sql.fragment`(i.title ILIKE ${pattern} OR i.body ILIKE ${pattern} OR i.index = ${index}
      OR i.id IN (SELECT c.issue_id FROM comments c WHERE ${repoScope} AND c.type = 0 AND c.body ILIKE ${pattern}))`);
  }
  if (filter.since !== undefined) conditions.push(sql.fragment`i.updated >= ${sql.timestamp(wholeSeconds(filter.since))}`);
  // Unix seconds: an issue updated during the second `before` names is still before it.
  if (filter.before !== undefined) conditions.push(sql.fragment`i.updated < ${sql.timestamp(wholeSeconds(filter.before))} + interval '1 second'`);
  if (filter.posterId > 0) conditions.push(sql.fragment`i.poster_id = ${filter.posterId}`);
  if (filter.assigneeId > 0) {
    conditions.push(sql.fragment`EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id AND a.assignee_id = ${filter.assigneeId})`);
  }
  if (filter.mentionedId > 0) {
    conditions.push(sql.fragment`EXISTS (SELECT 1 FROM issue_mentions im WHERE im.issue_id = i.id AND im.user_id = ${filter.mentionedId})`);
  }
  if (filter.reviewRequestedId > 0) {
    // Gitea's applyReviewRequestedCondition: asked in person or through a team, and not the poster.
    const teams = filter.reviewRequestedTeamIds.length === 0 ? sql.fragment`FALSE` : sql.fragment`EXISTS (
      SELECT 1 FROM reviews tr WHERE tr.issue_id = i.id AND tr.type = 4 AND tr.reviewer_team_id = ANY(${sql.array([...filter.reviewRequestedTeamIds], 'int8')}))`;
    conditions.push(
      sql.fragment`i.is_pull AND i.poster_id <> ${filter.reviewRequestedId} AND (
        EXISTS (SELECT 1 FROM review_requests rr WHERE rr.issue_id = i.id AND rr.reviewer_id = ${filter.reviewRequestedId}) OR ${teams})`,
    );
  }
  // Gitea's applyReviewedCondition: what others posted that the user reviewed (a review other than a request) or
  // commented on (plain, code and review comments).
  if (filter.reviewedId > 0) {
    const id = filter.reviewedId;
    conditions.push(sql.fragment`i.poster_id <> ${id} AND (
      EXISTS (SELECT 1 FROM reviews r WHERE r.issue_id = i.id AND r.reviewer_id = ${id} AND r.type <> 4)
      OR EXISTS (SELECT 1 FROM comments c WHERE c.issue_id = i.id AND c.poster_id = ${id} AND c.type IN (0, 21, 22)))`);
  }
  return conditions;
}

/** Label names and milestone references as a request gives them. */
export interface NamedFilters {
  labels: readonly string[];
  milestones: readonly string[];
}

export type ResolvedNames = Pick<IssueConditions, 'labels' | 'milestoneIds'>;

const nameRow = z.object({ name: z.string() });
const idRow = z.object({ id: z.number() });

/**
 * A repository list's names: labels the repository's issues may carry (its own and its owner organization's) by
 * exact name, every one required; milestones of the repository by exact title, else by id (Gitea's
 * GetMilestoneByRepoIDANDName, then the number as an id).
 */
export async function resolveRepoNames(db: CommonQueryMethods, repo: { repoId: number; ownerId: number }, named: NamedFilters): Promise<ResolvedNames> {
  const [labelNames, milestoneIds] = await Promise.all([
    named.labels.length === 0
      ? Promise.resolve([])
      : db.anyFirst(sql.type(nameRow)`
          SELECT DISTINCT l.name FROM labels l
          WHERE l.name = ANY(${sql.array([...named.labels], 'text')})
            AND (l.repo_id = ${repo.repoId} OR (l.org_id > 0 AND l.org_id = ${repo.ownerId}))`),
    named.milestones.length === 0 ? Promise.resolve([]) : repoMilestoneIds(db, repo.repoId, named.milestones),
  ]);
  return {
    labels: labelNames.length === 0 ? undefined : { names: [...labelNames], match: 'all' },
    milestoneIds: milestoneIds.length === 0 ? undefined : milestoneIds,
  };
}

async function repoMilestoneIds(db: CommonQueryMethods, repoId: number, references: readonly string[]): Promise<number[]> {
  const ids = references.filter((part) => /^\d{1,15}$/.test(part)).map(Number);
  const rows = await db.any(sql.type(z.object({ id: z.number(), title: z.string() }))`
    SELECT m.id, m.title FROM milestones m
    WHERE m.repo_id = ${repoId} AND (m.title = ANY(${sql.array([...references], 'text')}) OR m.id = ANY(${sql.array(ids, 'int8')}))`);
  const byTitle = new Map(rows.map((row) => [row.title, row.id]));
  const byId = new Set(rows.map((row) => row.id));
  // A reference is a title first; only a number that titles nothing is an id.
  const found = references.flatMap((part) => {
    const titled = byTitle.get(part);
    if (titled !== undefined) return [titled];
    return /^\d{1,15}$/.test(part) && byId.has(Number(part)) ? [Number(part)] : [];
  });
  return [...new Set(found)];
}

/**
 * A search's names (Gitea's GetLabelIDsByNames, GetMilestoneIDsByNames): labels of any of those names, one of them
 * enough; milestones of those titles. Only labels and milestones of the searched repositories count (and
 * organization labels in use there), so that what exists elsewhere changes nothing.
 */
export async function resolveSearchNames(db: CommonQueryMethods, repoIds: readonly number[], named: NamedFilters): Promise<ResolvedNames> {
  const repos = sql.array([...repoIds], 'int8');
  const [labelNames, milestoneIds] = await Promise.all([
    named.labels.length === 0
      ? Promise.resolve([])
      : db.anyFirst(sql.type(nameRow)`
          SELECT DISTINCT l.name FROM labels l
          WHERE l.name = ANY(${sql.array([...named.labels], 'text')})
            AND (l.repo_id = ANY(${repos})
                 OR (l.org_id > 0 AND EXISTS (SELECT 1 FROM issue_labels il JOIN issues i ON i.id = il.issue_id
                                             WHERE il.label_id = l.id AND i.repo_id = ANY(${repos}))))`),
    named.milestones.length === 0
      ? Promise.resolve([])
      : db.anyFirst(sql.type(idRow)`
          SELECT m.id FROM milestones m WHERE m.repo_id = ANY(${repos}) AND m.title = ANY(${sql.array([...named.milestones], 'text')})`),
  ]);
  return {
    labels: labelNames.length === 0 ? undefined : { names: [...labelNames], match: 'any' },
    milestoneIds: milestoneIds.length === 0 ? undefined : [...milestoneIds],
  };
}
