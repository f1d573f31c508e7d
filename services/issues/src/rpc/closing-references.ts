/**
 * Gitea's handleCloseCrossReferences, for a pull request merged through the API (or its scheduled merge): the issues
 * its title or body names after a close keyword ("Fixes #12", "closes acme/app#3") are closed, and after a reopen
 * keyword reopened, by the merger. What may be changed follows Gitea's verifyReferencedIssue, with the pull request's
 * poster as the one who wrote the references: an issue of the pull request's own repository (issues enabled) always;
 * one of another repository when the poster may read its issues and either writes them or posted that issue.
 * Pull requests, issues already in the wanted state and numbers that name nothing are left alone; for an issue
 * named more than once the last keyword counts (updateCrossReferenceList).
 *
 * `planClosingReferences` reads the text and asks repos about other repositories before the merge; `applyClosing
 * References` changes the issues in the merge's transaction, writing what closing or reopening by hand writes: the
 * state, a close or reopen timeline entry and cairn.issue.closed / .reopened.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code } from '@cairn/rpc';
import { type ReferenceAction, type ReferenceKeywords, actionReferences } from '@cairn/text';
import { type Access, UNIT_ISSUES, accessOf, canRead, canWrite } from '../domain/permissions';
import { stateEntry } from '../domain/timeline-entries';
import { enqueueIssueEvent } from '../events/issue-events';
import { lockIssuesByIndex, updateIssueColumns } from '../store/issue-writes';
import { toIssue } from '../store/issues';
import { insertTimelineEntries } from '../store/timeline';
import type { IssuesContext } from './context';

/** At most this many other repositories are looked up for one pull request. */
const MAX_OTHER_REPOSITORIES = 10;

/** The issues of one repository the merge closes or reopens: plain data, so a merge intent can keep it (JSON). */
export type ClosingTargets = {
  repoId: number;
  repoPrivate: boolean;
  /** [issue number, what the text asks], each number once. */
  actions: Array<[number, ReferenceAction]>;
  /** False: only issues the pull request's poster posted (they read but do not write this repository's issues). */
  anyIssue: boolean;
};

export interface MergedPullText {
  /** The pull request's repository, as the merger sees it. */
  access: Access;
  title: string;
  body: string;
  posterId: number;
}

const fullNameOf = (repository: Repository) => `${repository.ownerName}/${repository.name}`.toLowerCase();

/** Another repository as the poster sees it; undefined when they may not read its issues (or it does not exist). */
async function posterAccess(context: Pick<IssuesContext, 'repos'>, fullName: string, posterId: number): Promise<Access | undefined> {
  const [owner = '', name = ''] = fullName.split('/');
  const viewer = { userId: posterId, isAdmin: false, isRestricted: false };
  try {
    const { repository } = await context.repos.repos.getRepository({ viewer, id: 0, owner, name });
    if (repository?.repository === undefined) return undefined;
    const access = accessOf({ viewer, repository });
    return canRead(access) ? access : undefined;
  } catch (error) {
    if (error instanceof CairnError && (error.code === Code.NOT_FOUND || error.code === Code.INVALID_ARGUMENT)) return undefined;
    throw error;
  }
}

export async function planClosingReferences(
  context: Pick<IssuesContext, 'repos'>,
  text: MergedPullText,
  keywords: ReferenceKeywords,
): Promise<ClosingTargets[]> {
  const own = text.access.repository;
  const wanted = new Map<string, Map<number, ReferenceAction>>();
  for (const ref of [...actionReferences(text.title, keywords), ...actionReferences(text.body, keywords, true)]) {
    const fullName = ref.owner === '' ? fullNameOf(own) : `${ref.owner}/${ref.repo}`.toLowerCase();
    const actions = wanted.get(fullName) ?? new Map<number, ReferenceAction>();
    wanted.set(fullName, actions);
    actions.set(ref.index, ref.action);
  }
  const targets: ClosingTargets[] = [];
  const ownActions = wanted.get(fullNameOf(own));
  if (ownActions !== undefined && text.access.units.has(UNIT_ISSUES)) {
    targets.push({ repoId: own.id, repoPrivate: own.private, actions: [...ownActions], anyIssue: true });
  }
  const others = [...wanted.keys()].filter((name) => name !== fullNameOf(own)).slice(0, MAX_OTHER_REPOSITORIES);
  for (const fullName of others) {
    const access = await posterAccess(context, fullName, text.posterId);
    // A name that leads (by a rename) to the pull request's own repository was handled above, or not at all.
    if (access === undefined || access.repository.id === own.id) continue;
    const { id, private: repoPrivate } = access.repository;
    targets.push({ repoId: id, repoPrivate, actions: [...(wanted.get(fullName) ?? [])], anyIssue: canWrite(access) });
  }
  return targets;
}

export async function applyClosingReferences(
  tx: DatabaseTransactionConnection,
  targets: readonly ClosingTargets[],
  facts: { mergerId: number; posterId: number },
): Promise<void> {
  for (const { repoId, repoPrivate, actions, anyIssue } of targets) {
    const wanted = new Map(actions);
    for (const row of await lockIssuesByIndex(tx, repoId, [...wanted.keys()])) {
      if (!anyIssue && row.poster_id !== facts.posterId) continue;
      const closing = wanted.get(row.index) === 'close';
      if (row.is_closed === closing) continue;
      const after = await updateIssueColumns(tx, row.id, { isClosed: closing });
      await insertTimelineEntries(tx, [stateEntry({ repoId: row.repo_id, issueId: row.id, posterId: facts.mergerId }, closing)]);
      await enqueueIssueEvent(tx, closing ? 'closed' : 'reopened', {
        actorId: facts.mergerId,
        issue: await toIssue(tx, after),
        repoPrivate,
        changed: ['state'],
      });
    }
  }
}
