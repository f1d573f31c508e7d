/**
 * A pull request as a request may reach it: by (repository, index), NOT_FOUND when there is none (an issue's
 * number included) or the viewer may not read pull requests.
 */
import type { CommonQueryMethods } from '@cairn/db';
import { CairnError } from '@cairn/rpc';
import { findPullByIndex, type PullRow } from '../store/pulls';
import { type Access, canRead } from './permissions';

export async function readablePull(db: CommonQueryMethods, access: Access, index: number): Promise<PullRow> {
  if (!canRead(access, true) || !Number.isSafeInteger(index) || index <= 0) throw CairnError.notFound('pull request does not exist', { reason: 'pull_not_found' });
  const row = await findPullByIndex(db, access.repository.id, index);
  if (row === undefined) throw CairnError.notFound('pull request does not exist', { reason: 'pull_not_found' });
  return row;
}
