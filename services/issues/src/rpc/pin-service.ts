/**
 * Pinning (IssueService's PinIssue, UnpinIssue, MoveIssuePin, ListPinnedIssues, GetNewPinsAllowed and
 * PullService's ListPinnedPulls), as Gitea's routers/api/v1/repo/issue_pin.go and models/issues/issue_pin.go decide:
 *
 * - Pin, unpin and move: repository admins (reqAdmin, checked before the issue is looked up), then an issue the
 *   admin may read (NOT_FOUND otherwise). Archived repositories take none of them.
 * - Pinning appends after the kind's last pin; past `[repository.issue] MAX_PINNED` pins of the kind it is
 *   INVALID_ARGUMENT (reason max_pinned). Pinning a pinned issue, unpinning an unpinned one and moving an unpinned
 *   one change nothing (Gitea up to 1.23; its later issue_pin table answers 500 for the first and last).
 * - Pin and unpin write Gitea's timeline entries (CommentTypePin / CommentTypeUnpin). Unpinning leaves the other
 *   pins' positions as they are, as Gitea does; closing keeps the pin (Gitea unpins only on deletion, where the
 *   row goes with the issue).
 * - No events: Gitea notifies nothing about pins.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { IssueServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { PullServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import { readableIssue } from '../domain/issue-access';
import { accessOf, canRead, requireRead, requireReadEither } from '../domain/permissions';
import { isNewPinAllowed, nextPinOrder, requirePinManager, requirePinPosition } from '../domain/pin-rules';
import { insertTimelineComment } from '../store/issue-writes';
import { toIssues } from '../store/issues';
import {
  COMMENT_TYPE_PIN,
  COMMENT_TYPE_UNPIN,
  listPinnedIssueRows,
  listPinnedPullRows,
  lockRepoPins,
  pinStats,
  pinnedCounts,
  setPinOrder,
  shiftPins,
} from '../store/pins';
import { toPullRequests } from '../store/pulls';
import type { IssuesContext } from './context';
import { guard } from './guard';
import { lockedRow } from './issue-changes';

type IssueServiceHandlers = AsyncServiceOf<typeof IssueServiceService>;
export type PinHandlers = Pick<IssueServiceHandlers, 'pinIssue' | 'unpinIssue' | 'moveIssuePin' | 'listPinnedIssues' | 'getNewPinsAllowed'>;

export function createPinService(context: IssuesContext): PinHandlers {
  const { db } = context;
  const maxPinned = (): number => context.config.repository.issue.maxPinned;

  type PinRow = Awaited<ReturnType<typeof lockedRow>>;
  /**
   * What pin, unpin and move share: a repository admin (before the issue is looked up), an issue they may read, then
   * `change` on its locked row while the repository's pins are locked.
   */
  async function changePin(
    request: { scope?: Parameters<typeof accessOf>[0]; index: number },
    change: (tx: DatabaseTransactionConnection, row: PinRow, doerId: number) => Promise<void>,
    // Checks that come after the issue lookup (a bad position is 422 only for an issue that exists).
    check = (): void => undefined,
  ): Promise<Record<string, never>> {
    const access = accessOf(request.scope);
    requirePinManager(access);
    const current = await guard(() => readableIssue(db.pool, access, request.index));
    check();
    await guard(() =>
      db.pool.transaction(async (tx) => {
        await lockRepoPins(tx, current.repo_id);
        await change(tx, await lockedRow(tx, current), access.viewer.id);
      }),
    );
    return {};
  }

  return {
    pinIssue: (request) =>
      changePin(request, async (tx, row, doerId) => {
        if (row.pin_order > 0) return;
        const order = nextPinOrder(await pinStats(tx, row.repo_id, row.is_pull), maxPinned());
        await setPinOrder(tx, row.id, order, true);
        await insertTimelineComment(tx, { repoId: row.repo_id, issueId: row.id, type: COMMENT_TYPE_PIN, posterId: doerId, body: '' });
      }),

    unpinIssue: (request) =>
      changePin(request, async (tx, row, doerId) => {
        if (row.pin_order === 0) return;
        await setPinOrder(tx, row.id, 0, true);
        await insertTimelineComment(tx, { repoId: row.repo_id, issueId: row.id, type: COMMENT_TYPE_UNPIN, posterId: doerId, body: '' });
      }),

    moveIssuePin(request) {
      let position = 0;
      return changePin(
        request,
        async (tx, row) => {
          if (row.pin_order === 0 || row.pin_order === position) return;
          await shiftPins(tx, { repoId: row.repo_id, isPull: row.is_pull }, row.pin_order, position);
          await setPinOrder(tx, row.id, position, false);
        },
        () => {
          position = requirePinPosition(request.position);
        },
      );
    },

    async listPinnedIssues(request) {
      const access = accessOf(request.scope);
      // Gitea's `/issues` group wants issues or pull requests readable (404 otherwise) and then lists the pinned
      // issues; those of an unreadable issues unit are left out here rather than shown.
      requireReadEither(access);
      if (!canRead(access, false)) return { issues: [] };
      return guard(async () => ({ issues: await toIssues(db.pool, await listPinnedIssueRows(db.pool, access.repository.id, false)) }));
    },

    async getNewPinsAllowed(request) {
      const access = accessOf(request.scope);
      const counts = await guard(() => pinnedCounts(db.pool, access.repository.id));
      return { issues: isNewPinAllowed(counts.issues, maxPinned()), pullRequests: isNewPinAllowed(counts.pulls, maxPinned()) };
    },
  };
}

export type PinnedPullHandlers = Pick<AsyncServiceOf<typeof PullServiceService>, 'listPinnedPulls'>;

export function createPinnedPullService(context: IssuesContext): PinnedPullHandlers {
  const { db } = context;
  return {
    async listPinnedPulls(request) {
      const access = accessOf(request.scope);
      requireRead(access, true);
      return guard(async () => ({ pulls: await toPullRequests(db.pool, await listPinnedPullRows(db.pool, access.repository.id)) }));
    },
  };
}
