/** What listing stargazers and watchers share. */
import type { Database } from '@cairn/db';
import type { PageRequest } from '@cairn/proto/cairn/common/v1/common';
import { pageWindow } from '../domain/paging';
import { COUNTER_OF, readCounter } from '../store/counters';
import { listLinkedUsers, type LinkTable } from '../store/links';

/** One page of the users linked to a repository, oldest first, and how many there are in all (the counter). */
export async function linkedUsersPage(
  db: Database,
  table: LinkTable,
  repoId: number,
  page: PageRequest | undefined,
): Promise<{ userIds: number[]; total: number }> {
  const [userIds, total] = await Promise.all([
    listLinkedUsers(db.pool, table, repoId, pageWindow(page)),
    readCounter(db.pool, repoId, COUNTER_OF[table]),
  ]);
  return { userIds, total };
}
