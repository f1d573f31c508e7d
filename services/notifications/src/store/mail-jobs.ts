/**
 * The `mail_jobs` outbox, sender's side (queued by the consumers through mail/jobs.ts queueMailJobs): due jobs are
 * claimed with a lease, as services/hooks/src/store/tasks.ts claims hook tasks — `FOR UPDATE SKIP LOCKED`, so
 * replicas never take the same job, and the claim moves `next_attempt_at` to the lease's end, so a job whose sender
 * died is due again then. The attempt count is the claim's fencing token: an outcome recorded after the lease lapsed
 * and someone else claimed the job changes nothing.
 */
import { sql, z, type CommonQueryMethods } from '@cairn/db';

/** mail_jobs.state */
export const MailJobState = { pending: 0, sent: 1, skipped: 2, givenUp: 3 } as const;

const claimedRow = z.object({
  id: z.number(),
  job_key: z.string(),
  kind: z.string(),
  recipient_id: z.number(),
  reason: z.string(),
  data: z.unknown(),
  attempts: z.number(),
});

export interface ClaimedMailJob {
  id: number;
  jobKey: string;
  kind: string;
  recipientId: number;
  reason: string;
  /** As queued; mail/sender.ts checks its shape for the kind. */
  data: unknown;
  /** This attempt's number (1 for the first). */
  attempts: number;
}

export async function claimDueMailJobs(db: CommonQueryMethods, limit: number, leaseMs: number): Promise<ClaimedMailJob[]> {
  const rows = await db.any(sql.type(claimedRow)`
    WITH due AS (
      SELECT id FROM mail_jobs
      WHERE state = ${MailJobState.pending} AND next_attempt_at <= now()
      ORDER BY next_attempt_at, id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE mail_jobs j
    SET attempts = j.attempts + 1,
      lease_until = now() + make_interval(secs => ${leaseMs / 1000}),
      next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000})
    FROM due WHERE j.id = due.id
    RETURNING j.id, j.job_key, j.kind, j.recipient_id, j.reason, j.data, j.attempts`);
  return rows
    .map((row) => ({ id: row.id, jobKey: row.job_key, kind: row.kind, recipientId: row.recipient_id, reason: row.reason, data: row.data, attempts: row.attempts }))
    .sort((a, b) => a.id - b.id);
}

export type MailJobOutcome =
  | { kind: 'sent' }
  | { kind: 'skipped'; why: string }
  | { kind: 'retry'; retryInMs: number; error: string }
  | { kind: 'givenUp'; error: string };

/** Records the outcome of attempt `job.attempts`; false when the claim was stale (nothing changed). */
export async function recordMailOutcome(db: CommonQueryMethods, job: Pick<ClaimedMailJob, 'id' | 'attempts'>, outcome: MailJobOutcome): Promise<boolean> {
  const fence = sql.fragment`WHERE id = ${job.id} AND attempts = ${job.attempts} AND state = ${MailJobState.pending}`;
  let result;
  if (outcome.kind === 'retry') {
    result = await db.query(sql.unsafe`
      UPDATE mail_jobs SET lease_until = NULL, last_error = ${outcome.error},
        next_attempt_at = now() + make_interval(secs => ${outcome.retryInMs / 1000})
      ${fence}`);
  } else {
    const state = outcome.kind === 'sent' ? MailJobState.sent : outcome.kind === 'skipped' ? MailJobState.skipped : MailJobState.givenUp;
    const note = outcome.kind === 'sent' ? null : outcome.kind === 'skipped' ? outcome.why : outcome.error;
    result = await db.query(sql.unsafe`
      UPDATE mail_jobs SET state = ${state}, lease_until = NULL, last_error = ${note}, finished_at = now()
      ${fence}`);
  }
  return result.rowCount === 1;
}
