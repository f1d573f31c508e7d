/**
 * CairnError (a gRPC status from a service) → HttpError, through the one table in @cairn/rpc and the
 * overrides of the route that made the call (Gitea answers the same failure differently on different
 * routes, e.g. a taken token name is 400 but a taken user name is 422).
 */
import { type CairnError, type HttpStatusOverrides, httpStatusOf } from '@cairn/rpc';
import { HttpError } from './errors';

/** What a route says about the errors of the calls it makes. */
export interface CairnErrorMapping {
  /** Status per gRPC code, over the shared table. */
  codes?: HttpStatusOverrides;
  /** Per `reason`: a status (the service's message is kept) or the whole answer. Wins over `codes`. */
  reasons?: Readonly<Record<string, number | ((error: CairnError) => HttpError)>>;
}

/** The message of every 5xx that is not a 503: what went wrong stays in the logs. */
export const INTERNAL_ERROR_MESSAGE = 'internal server error';

export function httpErrorFromCairn(error: CairnError, mapping: CairnErrorMapping = {}): HttpError {
  const byReason = error.reason === undefined ? undefined : mapping.reasons?.[error.reason];
  if (typeof byReason === 'function') return byReason(error);
  const status = byReason ?? httpStatusOf(error, mapping.codes);
  if (status === 404) return HttpError.notFound('not found', [error.message]);
  // A dead or slow service is worth naming ("accounts is unavailable"); anything else in 5xx is not.
  if (status === 503) return new HttpError(503, error.message, { cause: error });
  if (status >= 500) return new HttpError(status, INTERNAL_ERROR_MESSAGE, { cause: error });
  return new HttpError(status, error.message, { cause: error });
}

