/**
 * Gitea's merge rules (services/pull/check.go CheckPullMergeable, CheckPullBranchProtections, services/pull/
 * commit_status.go MergeRequiredContextsCommitStatus, models/issues/review.go approvals, routers/api/v1/repo/pull.go
 * MergePullRequest), as pure functions of what the merge handler gathered: the pull request, the repository's
 * pull-request settings, the base branch's protection and whether the merger may merge, the reviews and the head's
 * commit statuses. Every refusal Gitea answers with 405 is FAILED_PRECONDITION with reason `merge_refused` and Gitea's
 * message; a closed pull request is NOT_FOUND; 409s are ABORTED.
 */
import { globMatcher } from '@cairn/text';
import type { Review } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { BranchProtection, Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code } from '@cairn/rpc';

export const MERGE_STYLES = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only', 'manually-merged'] as const;
export type MergeStyle = (typeof MERGE_STYLES)[number];

/** Gitea's `[repository.pull-request] WORK_IN_PROGRESS_PREFIXES` default. */
export const WORK_IN_PROGRESS_PREFIXES: readonly string[] = ['WIP:', '[WIP]'];

/** The reason every 405 refusal carries (the gateway answers 405 with the message). */
export const MERGE_REFUSED = 'merge_refused';

export const Refusal = {
  alreadyMerged: 'The PR is already merged',
  notAllowed: 'User not allowed to merge PR',
  workInProgress: 'Work in progress PRs cannot be merged',
  notMergeable: 'Please try again later',
  statusChecks: 'Not all required status checks successful',
  approvals: 'Does not have enough approvals',
  rejected: 'There are requested changes',
  officialRequests: 'There are official review requests',
  outdated: 'The head branch is behind the base branch',
  protectedFiles: 'Changed protected files',
} as const;

export function refused(message: string): CairnError {
  return CairnError.precondition(message, { reason: MERGE_REFUSED });
}

/** ABORTED (409) `Wrong commit ID`: a manual merge's commit is not a full id contained in the base branch. */
export function wrongCommitId(): CairnError {
  return new CairnError(Code.ABORTED, 'Wrong commit ID', { reason: 'wrong_commit_id' });
}

/** ABORTED (409) `head out of date` (Gitea's ErrMergeHeadOutOfDate, services/pull/merge.go); `cause` for the logs. */
export function headOutOfDate(cause?: unknown): CairnError {
  return new CairnError(Code.ABORTED, 'head out of date', { reason: 'head_out_of_date', cause });
}

/**
 * The head commit a merge may merge: the one the pull request's stored mergeability, its reviews (stale or not) and
 * the commit statuses the checks read were computed for (`recorded`, set by the last check). A head_commit_id the
 * merger sent must be that commit too (Gitea compares it with the head it merges, services/pull/merge.go). Without
 * this a head that moved after the approvals and green checks (a push to refs/pull/<n>/head, a check not yet run)
 * would be merged on the strength of another commit's. git-storage then merges only if refs/pull/<n>/head still
 * points at it.
 */
export function headToMerge(recorded: string, requested: string): string {
  const wanted = requested.trim();
  if (recorded === '' || (wanted !== '' && wanted !== recorded)) throw headOutOfDate();
  return recorded;
}

export function isMergeStyle(text: string): text is MergeStyle {
  return (MERGE_STYLES as readonly string[]).includes(text);
}

/** The request's style; INVALID_ARGUMENT for anything else (the gateway answers Gitea's 422 binding error first). */
export function parseMergeStyle(text: string): MergeStyle {
  if (!isMergeStyle(text)) throw CairnError.invalid(`unknown merge style: ${JSON.stringify(text.slice(0, 40))}`, { reason: 'merge_style' });
  return text;
}

type PullSettings = Pick<
  Repository,
  'allowMergeCommits' | 'allowRebase' | 'allowRebaseExplicit' | 'allowSquashMerge' | 'allowFastForwardOnlyMerge' | 'allowManualMerge'
>;

/** Gitea's PullRequestsConfig.IsMergeStyleAllowed. */
export function isMergeStyleAllowed(settings: PullSettings, style: MergeStyle): boolean {
  switch (style) {
    case 'merge':
      return settings.allowMergeCommits;
    case 'rebase':
      return settings.allowRebase;
    case 'rebase-merge':
      return settings.allowRebaseExplicit;
    case 'squash':
      return settings.allowSquashMerge;
    case 'fast-forward-only':
      return settings.allowFastForwardOnlyMerge;
    case 'manually-merged':
      return settings.allowManualMerge;
  }
}

/** 405 `<style> is not allowed an allowed merge style for this repository` (Gitea's wording, typo included). */
export function requireMergeStyleAllowed(settings: PullSettings, style: MergeStyle): void {
  if (!isMergeStyleAllowed(settings, style)) throw refused(`${style} is not allowed an allowed merge style for this repository`);
}

/** Gitea's HasWorkInProgressPrefix: the title starts with a prefix, case-insensitively. */
export function isWorkInProgress(title: string, prefixes: readonly string[] = WORK_IN_PROGRESS_PREFIXES): boolean {
  const upper = title.toUpperCase();
  return prefixes.some((prefix) => prefix !== '' && upper.startsWith(prefix.toUpperCase()));
}

/** What a review counts for in the protection checks (a stored review or the Review message). */
export type ReviewFacts = Pick<Review, 'reviewerId' | 'state' | 'official' | 'dismissed' | 'stale'>;

/**
 * Gitea's GetGrantedApprovalsCount: official, non-dismissed approvals (stale ones left out when the rule ignores
 * them), one per reviewer — only a reviewer's latest review is official, so this counts users.
 */
export function grantedApprovals(rule: Pick<BranchProtection, 'ignoreStaleApprovals'>, reviews: readonly ReviewFacts[]): number {
  const approvers = new Set<number>();
  for (const review of reviews) {
    if (review.state !== 'APPROVED' || !review.official || review.dismissed) continue;
    if (rule.ignoreStaleApprovals && review.stale) continue;
    approvers.add(review.reviewerId);
  }
  return approvers.size;
}

/** Gitea's HasEnoughApprovals. */
export function hasEnoughApprovals(rule: Pick<BranchProtection, 'requiredApprovals' | 'ignoreStaleApprovals'>, reviews: readonly ReviewFacts[]): boolean {
  return rule.requiredApprovals <= 0 || grantedApprovals(rule, reviews) >= rule.requiredApprovals;
}

/** Gitea's MergeBlockedByRejectedReview: an official change request that is not dismissed. */
export function blockedByRejectedReview(rule: Pick<BranchProtection, 'blockOnRejectedReviews'>, reviews: readonly ReviewFacts[]): boolean {
  return rule.blockOnRejectedReviews && reviews.some((review) => review.state === 'REQUEST_CHANGES' && review.official && !review.dismissed);
}

/** Gitea's MergeBlockedByOfficialReviewRequests: an official review request not answered yet. */
export function blockedByOfficialReviewRequests(rule: Pick<BranchProtection, 'blockOnOfficialReviewRequests'>, reviews: readonly ReviewFacts[]): boolean {
  return rule.blockOnOfficialReviewRequests && reviews.some((review) => review.state === 'REQUEST_REVIEW' && review.official);
}

/** Commit-status states, most severe first (Gitea's commitStatusPriorities). */
const STATE_PRIORITY: readonly string[] = ['error', 'failure', 'warning', 'pending', 'success', 'skipped'];

function priorityOf(state: string): number {
  const index = STATE_PRIORITY.indexOf(state);
  return index < 0 ? STATE_PRIORITY.length : index;
}

export interface StatusFacts {
  /** The latest status per context. */
  statuses: readonly { context: string; state: string }[];
  /** The combined state over all of them (repos' GetCombinedStatus). */
  combinedState: string;
}

/**
 * Gitea's MergeRequiredContextsCommitStatus: no status at all is pending; without required contexts the combined
 * state; else the most severe state among the first status matching each required pattern (a pattern nothing
 * matches makes it pending), falling back to the combined state when no pattern matched anything.
 */
export function requiredContextsState(facts: StatusFacts, requiredContexts: readonly string[]): string {
  if (facts.statuses.length === 0) return 'pending';
  if (requiredContexts.length === 0) return facts.combinedState;
  let state = 'success';
  let matched = 0;
  for (const pattern of requiredContexts) {
    const matches = globMatcher(pattern, { separators: '' });
    const target = facts.statuses.find((status) => matches(status.context));
    if (target === undefined) {
      if (state === 'success') state = 'pending';
      break;
    }
    matched += 1;
    if (priorityOf(target.state) < priorityOf(state)) state = target.state;
  }
  if (matched === 0 && state === 'success') return facts.combinedState;
  return state;
}

/** Gitea's IsPullCommitStatusPass. */
export function statusChecksPass(rule: Pick<BranchProtection, 'enableStatusCheck' | 'statusCheckContexts'>, facts: StatusFacts): boolean {
  return !rule.enableStatusCheck || requiredContextsState(facts, rule.statusCheckContexts) === 'success';
}

/** Gitea's GetProtectedFilePatterns: `;`-separated, trimmed, lower-cased, compiled with `.` and `/` as separators. */
export function protectedFileMatchers(patterns: string): ((path: string) => boolean)[] {
  return patterns
    .split(';')
    .map((pattern) => pattern.trim().toLowerCase())
    .filter((pattern) => pattern !== '')
    .map((pattern) => globMatcher(pattern, { separators: './' }));
}

/** The changed files a rule's protected file patterns name (Gitea's CheckFileProtection; it keeps 10). */
export function changedProtectedFiles(rule: Pick<BranchProtection, 'protectedFilePatterns'>, changed: readonly string[], limit = 10): string[] {
  const matchers = protectedFileMatchers(rule.protectedFilePatterns);
  if (matchers.length === 0) return [];
  const found: string[] = [];
  for (const path of changed) {
    const lower = path.toLowerCase();
    if (matchers.some((matches) => matches(lower))) found.push(path);
    if (found.length >= limit) break;
  }
  return found;
}

/** What the protection checks look at besides the rule. */
export interface ProtectionFacts {
  reviews: readonly ReviewFacts[];
  statuses: StatusFacts;
  /** The base branch has commits the head lacks (Gitea's CommitsBehind > 0). */
  behindBase: boolean;
  /** Files the pull request changes that the rule protects. */
  changedProtectedFiles: readonly string[];
}

/** Gitea's CheckPullBranchProtections: the first unmet requirement's message, or undefined when all are met. */
export function protectionRefusal(rule: BranchProtection | undefined, facts: ProtectionFacts): string | undefined {
  if (rule === undefined) return undefined;
  if (!statusChecksPass(rule, facts.statuses)) return Refusal.statusChecks;
  if (!hasEnoughApprovals(rule, facts.reviews)) return Refusal.approvals;
  if (blockedByRejectedReview(rule, facts.reviews)) return Refusal.rejected;
  if (blockedByOfficialReviewRequests(rule, facts.reviews)) return Refusal.officialRequests;
  if (rule.blockOnOutdatedBranch && facts.behindBase) return Refusal.outdated;
  if (protectedFileMatchers(rule.protectedFilePatterns).length > 0 && facts.changedProtectedFiles.length > 0) return Refusal.protectedFiles;
  return undefined;
}

/** The pull request as the pre-checks see it. */
export interface PullFacts {
  hasMerged: boolean;
  isClosed: boolean;
  title: string;
  status: string;
}

/** Who merges and how. */
export interface MergerFacts {
  /** A signed-in user (the gateway requires a token). */
  signedIn: boolean;
  /** Code write on the base without a rule, or the rule's merge allow list (repos' user_can_merge). */
  userCanMerge: boolean;
  /** Repository administrator (site admins too). */
  isRepoAdmin: boolean;
  forceMerge: boolean;
}

/**
 * The checks before any git work, in Gitea's order (CheckPullMergeable, then the style in Merge/MergedManually):
 * merged, closed, permission; a manual merge stops there; then work in progress, mergeability and the branch
 * protection (which a repository admin's `force_merge` skips unless the rule blocks it); last the style. Signing and
 * the merge's own conflicts are git-storage's answers to Merge. Throws the refusal.
 */
export function checkMergeable(input: {
  style: MergeStyle;
  settings: PullSettings;
  pull: PullFacts;
  merger: MergerFacts;
  protection: BranchProtection | undefined;
  /** Read only when a protection applies (the handler gathers it only then). */
  protectionFacts: ProtectionFacts | undefined;
  workInProgressPrefixes?: readonly string[];
}): void {
  const { style, pull, merger, protection } = input;
  if (pull.hasMerged) throw refused(Refusal.alreadyMerged);
  if (pull.isClosed) throw CairnError.notFound('pull request is closed', { reason: 'pull_closed' });
  if (!merger.signedIn || !merger.userCanMerge) throw refused(Refusal.notAllowed);
  if (style !== 'manually-merged') {
    if (isWorkInProgress(pull.title, input.workInProgressPrefixes)) throw refused(Refusal.workInProgress);
    if (pull.status !== 'mergeable' && pull.status !== 'empty') throw refused(Refusal.notMergeable);
    if (protection !== undefined) {
      const refusal = protectionRefusal(protection, input.protectionFacts ?? EMPTY_PROTECTION_FACTS);
      const overridden = merger.forceMerge && merger.isRepoAdmin && !protection.blockAdminMergeOverride;
      if (refusal !== undefined && !overridden) throw refused(refusal);
    }
  }
  requireMergeStyleAllowed(input.settings, style);
}

const EMPTY_PROTECTION_FACTS: ProtectionFacts = { reviews: [], statuses: { statuses: [], combinedState: 'pending' }, behindBase: false, changedProtectedFiles: [] };

/** The pull request as the default message names it. */
export interface MessageFacts {
  title: string;
  index: number;
  headBranch: string;
  baseBranch: string;
  /** `owner/name` of a fork head; undefined for the base repository itself; null when the fork is gone. */
  headRepoFullName: string | undefined | null;
  /** The repository uses an external tracker (Gitea then writes `!` before the number). */
  externalTracker?: boolean;
}

/** Gitea's getMergeMessage without a template: the squash commit's title, or the merge commit's. */
export function defaultMergeMessage(style: MergeStyle, facts: MessageFacts): string {
  const reference = `${facts.externalTracker === true ? '!' : '#'}${facts.index}`;
  if (style === 'squash') return `${facts.title} (${reference})`;
  const head =
    facts.headRepoFullName === undefined ? facts.headBranch : `${facts.headRepoFullName === null ? '<deleted>' : facts.headRepoFullName}:${facts.headBranch}`;
  return `Merge pull request '${facts.title}' (${reference}) from ${head} into ${facts.baseBranch}`;
}

/** routers/api/v1/repo/pull.go: the trimmed title (or the default) and, after a blank line, the trimmed message. */
export function mergeMessage(style: MergeStyle, facts: MessageFacts, title: string, message: string): string {
  const head = title.trim() === '' ? defaultMergeMessage(style, facts) : title.trim();
  const body = message.trim();
  return body === '' ? head : `${head}\n\n${body}`;
}

/** Gitea's full-length object ids: 40 (sha1) or 64 (sha256) hex digits. */
export function isFullCommitId(id: string, objectFormat = 'sha1'): boolean {
  const length = objectFormat === 'sha256' ? 64 : 40;
  return id.length === length && /^[0-9a-f]+$/i.test(id);
}
