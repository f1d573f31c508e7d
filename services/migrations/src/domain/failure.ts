/**
 * How an import step's error ends the task (Gitea's routers/api/v1/repo/migrate.go handleMigrateError): the remote
 * refused the credentials → "Authentication failed: …."; anything git or the guard reported → "Migration failed: …."
 * (both 422 at the gateway); a passing failure of a Cairn service (unavailable, internal) is tried again, up to
 * MAX_ATTEMPTS claims (Gitea's [migrations] MAX_ATTEMPTS, 3), then fails as a migration failure.
 */
import { MigrationSourceError } from '@cairn/migration';
import { OutboundRefusedError } from '@cairn/outbound';
import { CairnError, Code, isCairnError } from '@cairn/rpc';

export const MAX_ATTEMPTS = 3;
/** Gitea's [migrations] RETRY_BACKOFF (3 s). */
export const RETRY_BACKOFF_MS = 3_000;

export type StepFailure = { kind: 'retry'; message: string } | { kind: 'failed'; reason: 'auth_failed' | 'migration_failed'; message: string };

/**
 * Errors a second claim would meet again. DEADLINE_EXCEEDED is not one: a slow moment of a Cairn service (an import
 * RPC waiting on a lock) or a git fetch past its timeout may pass, and the attempts bound the retries.
 */
const FINAL_CODES = new Set([Code.INVALID_ARGUMENT, Code.PERMISSION_DENIED, Code.FAILED_PRECONDITION, Code.NOT_FOUND, Code.UNIMPLEMENTED]);

export function classifyFailure(error: unknown, attempts: number): StepFailure {
  const cairn = isCairnError(error) ? error : undefined;
  const detail = (cairn?.message ?? 'internal error').replace(/\.$/, '');
  if (cairn?.reason === 'auth_failed') return { kind: 'failed', reason: 'auth_failed', message: `Authentication failed: ${detail}.` };
  if ((cairn !== undefined && FINAL_CODES.has(cairn.code)) || attempts >= MAX_ATTEMPTS) {
    return { kind: 'failed', reason: 'migration_failed', message: `Migration failed: ${detail}.` };
  }
  return { kind: 'retry', message: `retrying after: ${detail}` };
}

/** The error Migrate answers for a failed task. */
export function failedImport(message: string, reason: string): CairnError {
  return CairnError.precondition(message, { reason });
}

/**
 * An item step's failure as the runner classifies it: the source refusing the credentials is an authentication
 * failure, another 4xx of the source or a refused host ends the import, a 5xx or a broken connection is tried again.
 */
export function sourceFailure(error: unknown): unknown {
  if (error instanceof MigrationSourceError) {
    if (error.status === 401 || error.status === 403) return new CairnError(Code.PERMISSION_DENIED, error.message, { reason: 'auth_failed' });
    if (error.status >= 400 && error.status < 500) return CairnError.precondition(error.message);
    return CairnError.unavailable(error.message);
  }
  if (error instanceof OutboundRefusedError) return CairnError.precondition(error.message);
  if (!isCairnError(error) && error instanceof Error) return CairnError.unavailable(`reading the source failed: ${error.message}`);
  return error;
}
