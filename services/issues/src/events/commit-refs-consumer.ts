/**
 * The `issues-commit-refs` consumer, Gitea's UpdateIssuesCommit for every push: the commits a push brought to a
 * branch (at most 100 per branch, oldest first; a new branch's commits not on the default branch; a new default
 * branch's none) name issues in their messages (`#N`, `owner/repo#N`, read as plain text by
 * @cairn/text). Each named issue or pull request the pusher may read gets a commit_ref timeline entry
 * linking the commit (once per commit, however often it is pushed). An issue the pusher may close (they write the
 * repository's issues, administer it, or posted the issue) is closed after a close keyword and reopened after a
 * reopen keyword, when the branch is the repository's default branch or the branch the issue names as its `ref`;
 * with its timeline entry and cairn.issue.closed / .reopened, the pusher as the actor. Pull requests are never
 * closed this way. A private repository's commits link on other repositories' issues not at all (the link names
 * the commit's subject), though their keywords still act. Each reference is one transaction; the event is recorded
 * as handled after the last.
 */
import type { Bus, BusHandler, Subscription } from '@cairn/bus';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import type { Commit } from '@cairn/proto/cairn/git/v1/git_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code } from '@cairn/rpc';
import { type IssueReference, issueReferences } from '@cairn/text';
import { type Access, accessOf, canRead, canWrite, isRepoAdmin } from '../domain/permissions';
import { gitRepositoryOfRepo, repositoryById } from '../domain/pull-check';
import { TimelineType, stateEntry } from '../domain/timeline-entries';
import type { IssuesContext } from '../rpc/context';
import { lockIssueByIndex, updateIssueColumns } from '../store/issue-writes';
import { toIssue } from '../store/issues';
import { hasCommitReference, insertTimelineEntries } from '../store/timeline';
import { enqueueIssueEvent } from './issue-events';
import { GIT_PUSHED, GIT_STREAM, handledAfter } from './git-consumer';

export const COMMIT_REFS_CONSUMER = 'issues-commit-refs';

/** At most this many commits of one branch update are read. */
const MAX_COMMITS = 100;
const ZERO = /^0+$/;
const BRANCH_PREFIX = 'refs/heads/';

interface BranchUpdate {
  branch: string;
  oldSha: string;
  newSha: string;
}

/** The branches a push created or moved (deletions and other refs name no new commits). */
export function branchUpdates(event: GitPushed): BranchUpdate[] {
  return event.refUpdates
    .filter((update) => update.ref.startsWith(BRANCH_PREFIX) && !ZERO.test(update.newSha) && update.newSha !== '')
    .map((update) => ({ branch: update.ref.slice(BRANCH_PREFIX.length), oldSha: update.oldSha, newSha: update.newSha }));
}

/** Gitea's html.EscapeString. */
function escapeHtml(text: string): string {
  return text.replace(/[&'<>"]/g, (char) => ({ '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;' })[char] ?? char);
}

/** Gitea's commit_ref content: a link to the commit (under the instance's sub-path) named by its subject line. */
export function commitLinkBody(rootUrl: string, repository: Repository, commit: Commit): string {
  const subPath = new URL(rootUrl).pathname.replace(/\/+$/, '');
  const link = `${subPath}/${encodeURIComponent(repository.ownerName)}/${encodeURIComponent(repository.name)}/commit/${encodeURIComponent(commit.sha)}`;
  return `<a href="${escapeHtml(link)}">${escapeHtml(commit.message.split('\n', 1)[0] ?? '')}</a>`;
}

/** The commits `update` brought to the branch, oldest first. */
async function newCommits(context: IssuesContext, repository: Repository, update: BranchUpdate): Promise<Commit[]> {
  const isNew = update.oldSha === '' || ZERO.test(update.oldSha);
  if (isNew && update.branch === repository.defaultBranch) return [];
  const base = isNew ? `${BRANCH_PREFIX}${repository.defaultBranch}` : update.oldSha;
  try {
    const { commits } = await context.git.merge.listCommitsBetween({
      repository: gitRepositoryOfRepo(repository),
      base,
      head: update.newSha,
      page: { page: 1, limit: MAX_COMMITS },
      withFiles: false,
      withVerification: false,
    });
    return [...commits].reverse();
  } catch (error) {
    // A branch gone or rewritten since the push (or unrelated to the default branch): nothing to read any more.
    if (error instanceof CairnError && (error.code === Code.NOT_FOUND || error.code === Code.INVALID_ARGUMENT || error.code === Code.FAILED_PRECONDITION)) {
      return [];
    }
    throw error;
  }
}

/** The pusher's access to the repository a reference names; undefined when it names none they may read. */
function pusherAccessLookup(context: IssuesContext, pushed: Repository, pusherId: number): (ref: IssueReference) => Promise<Access | undefined> {
  const viewer = { userId: pusherId, isAdmin: false, isRestricted: false };
  const known = new Map<string, Promise<Access | undefined>>();
  const look = async (ref: IssueReference): Promise<Access | undefined> => {
    try {
      const { repository } = await context.repos.repos.getRepository(
        ref.owner === '' ? { viewer, id: pushed.id, owner: '', name: '' } : { viewer, id: 0, owner: ref.owner, name: ref.repo },
      );
      return repository?.repository === undefined ? undefined : accessOf({ viewer, repository });
    } catch (error) {
      if (error instanceof CairnError && (error.code === Code.NOT_FOUND || error.code === Code.INVALID_ARGUMENT)) return undefined;
      throw error;
    }
  };
  return (ref) => {
    const key = `${ref.owner}/${ref.repo}`.toLowerCase();
    let access = known.get(key);
    if (access === undefined) {
      access = look(ref);
      known.set(key, access);
    }
    return access;
  };
}

interface CommitReference {
  access: Access;
  index: number;
  action: IssueReference['action'];
  commit: Commit;
  body: string;
  branch: string;
  pusherId: number;
  /** The commit's repository: its link shows only on its own issues when it is private. */
  pushed: Repository;
}

async function applyCommitReference(context: IssuesContext, ref: CommitReference): Promise<void> {
  const { access, pusherId } = ref;
  await context.db.pool.transaction(async (tx) => {
    const row = await lockIssueByIndex(tx, access.repository.id, ref.index);
    if (row === null) return;
    const canClose = isRepoAdmin(access) || canWrite(access, row.is_pull) || row.poster_id === pusherId;
    if (!canClose && !canRead(access, row.is_pull)) return;
    const place = { repoId: row.repo_id, issueId: row.id, posterId: pusherId };
    const linkable = !ref.pushed.private || ref.pushed.id === row.repo_id;
    if (linkable && !(await hasCommitReference(tx, row.id, ref.commit.sha))) {
      await insertTimelineEntries(tx, [{ ...place, type: TimelineType.commitRef, body: ref.body, commitSha: ref.commit.sha }]);
    }
    if (row.is_pull || !canClose || ref.action === undefined) return;
    const branchOfIssue = row.ref.startsWith(BRANCH_PREFIX) ? row.ref.slice(BRANCH_PREFIX.length) : row.ref;
    if (branchOfIssue !== '' ? ref.branch !== branchOfIssue : ref.branch !== access.repository.defaultBranch) return;
    const closing = ref.action === 'close';
    if (row.is_closed === closing) return;
    const after = await updateIssueColumns(tx, row.id, { isClosed: closing });
    await insertTimelineEntries(tx, [stateEntry(place, closing)]);
    await enqueueIssueEvent(tx, closing ? 'closed' : 'reopened', {
      actorId: pusherId,
      issue: await toIssue(tx, after),
      repoPrivate: access.repository.private,
      changed: ['state'],
    });
  });
}

export function commitRefsHandler(context: IssuesContext): BusHandler {
  return handledAfter(context, COMMIT_REFS_CONSUMER, GitPushed, async (event) => {
    const updates = branchUpdates(event);
    // Only pushes reference and close issues (Gitea's UpdateIssuesCommit runs in services/repository/push.go
    // pushUpdates); a mirror's sync or an import's git data does not.
    if (event.repoId <= 0 || event.pusherId <= 0 || updates.length === 0 || event.origin !== '') return;
    const pushed = await repositoryById(context, event.repoId);
    if (pushed === undefined) return;
    const { closeKeywords, reopenKeywords } = context.config.repository.pullRequest;
    const keywords = { close: closeKeywords, reopen: reopenKeywords };
    const accessFor = pusherAccessLookup(context, pushed, event.pusherId);
    for (const update of updates) {
      for (const commit of await newCommits(context, pushed, update)) {
        const body = commitLinkBody(context.config.server.rootUrl, pushed, commit);
        const seen = new Set<string>();
        for (const ref of issueReferences(commit.message, keywords)) {
          // Gitea's markKey: each issue once per action and commit.
          const key = `${ref.owner}/${ref.repo}#${ref.index}:${ref.action ?? ''}`.toLowerCase();
          if (seen.has(key)) continue;
          seen.add(key);
          const access = await accessFor(ref);
          if (access === undefined) continue;
          await applyCommitReference(context, {
            access,
            index: ref.index,
            action: ref.action,
            commit,
            body,
            branch: update.branch,
            pusherId: event.pusherId,
            pushed,
          });
        }
      }
    }
  });
}

export function startCommitRefsConsumer(context: IssuesContext, bus: Bus): Promise<Subscription> {
  return bus.consume({ stream: GIT_STREAM, durable: COMMIT_REFS_CONSUMER, filterSubject: GIT_PUSHED, handler: commitRefsHandler(context) });
}
