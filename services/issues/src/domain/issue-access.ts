/**
 * An issue as a request may reach it: by (repository, index), NOT_FOUND when it does not exist or the viewer may not
 * read its unit (issues, or pull requests for a pull request's issue).
 */
import type { CommonQueryMethods } from '@cairn/db';
import { CairnError } from '@cairn/rpc';
import { findIssueByIndex, type IssueRow } from '../store/issues';
import { type Access, canRead } from './permissions';

export async function readableIssue(db: CommonQueryMethods, access: Access, index: number): Promise<IssueRow> {
  if (!Number.isSafeInteger(index) || index <= 0) throw CairnError.notFound('issue does not exist');
  const row = await findIssueByIndex(db, access.repository.id, index);
  if (row === undefined || !canRead(access, row.is_pull)) throw CairnError.notFound('issue does not exist');
  return row;
}
