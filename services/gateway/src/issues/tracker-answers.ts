/**
 * How Gitea's label and milestone handlers answer the failures the issues service reports: a missing label,
 * milestone or issue is the bare `APIErrorNotFound()` (`errors: null`), a refusal Gitea sends without a body
 * (`ctx.Status(403)`, the service's PERMISSION_DENIED with no message) is a 403 with no body, and an archived
 * repository is 423. Anything else goes on to the route's table.
 */
import { HttpError } from '@cairn/http';
import { Code, isCairnError } from '@cairn/rpc';
import type { ApiReply } from '../api/types';

/** The route-table part: the archived repository's 423 (`<owner>/<repo> is archived`). */
export const TRACKER_ERRORS = { reasons: { archived: 423 } } as const;

export async function trackerAnswer(work: () => Promise<ApiReply>): Promise<ApiReply> {
  try {
    return await work();
  } catch (error) {
    if (!isCairnError(error)) throw error;
    if (error.code === Code.NOT_FOUND) throw HttpError.notFound();
    if (error.code === Code.PERMISSION_DENIED && error.message === '') return { status: 403 };
    throw error;
  }
}
