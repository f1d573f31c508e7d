/**
 * The deliverer: claims due hook tasks (store/tasks.ts, leased so a replica that dies mid-attempt lets them go),
 * renders each for its hook type, signs and sends it through @cairn/outbound's guard, and records the attempt
 * (Gitea's services/webhook/deliver.go). Cairn departures: a failed attempt is retried with exponential backoff up to
 * `[webhook] DELIVERY_ATTEMPTS` (Gitea tries once), always with the same X-Gitea-Delivery uuid, and each target host
 * has an opossum circuit breaker; while it is open that host's tasks wait without spending attempts.
 */
import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import CircuitBreaker from 'opossum';
import { startClaimLoop } from '@cairn/service';
import { type OutboundPolicy, OutboundRefusedError, type OutboundResponse, type Resolver, outboundRequest, parseHostMatchList } from '@cairn/outbound';
import type { HooksContext } from '../rpc/context';
import { type AttemptOutcome, type DueTask, type HookRequestInfo, type HookResponseInfo, cancelPendingTasks, claimDueTasks, postponeTask, recordAttempt } from '../store/tasks';
import { type RenderedRequest, renderRequest } from './formats';

export interface Deliverer {
  /** Wakes the loop now (new tasks were committed) instead of at its next poll. */
  wake(): void;
  /**
   * Holds delivery slots for tasks a transaction is about to write claimed (store/fan-out.ts insertTasks); the
   * caller settles the handoff once that transaction has ended.
   */
  handoff(): Handoff;
  stop(): Promise<void>;
}

/** Slots held for tasks written claimed; nothing else may use them until the handoff is settled. */
export interface Handoff {
  /** How long a task written claimed is held (the deliverer's lease). */
  readonly leaseMs: number;
  /** Takes up to `wanted` more slots now (synchronously, inside the transaction); answers how many it got. */
  take(wanted: number): number;
  /** After commit: attempts the claimed tasks at once, and frees the slots they do not use. Tasks written unclaimed
   * beside them need a wake(). */
  deliver(tasks: readonly DueTask[]): void;
  /** After a rollback (or nothing written claimed): frees the slots. */
  release(): void;
}

/** The breaker of each target host (opossum's option names). */
export interface HostBreakerOptions {
  /** Failures needed in the window before the circuit may open. */
  volumeThreshold: number;
  errorThresholdPercentage: number;
  /** How long the circuit stays open before one attempt is let through. */
  resetTimeoutMs: number;
  rollingWindowMs: number;
}

export interface DelivererOptions {
  /** How often due tasks are looked for without a wake(). */
  pollIntervalMs: number;
  /** Attempts in flight at once (per process). */
  concurrency: number;
  /** How long a claim holds a task; must outlast an attempt (DELIVER_TIMEOUT). */
  leaseMs: number;
  /** Attempts before a task is failed (`[webhook] DELIVERY_ATTEMPTS`). */
  attempts: number;
  /** Wait before the first retry, doubled after each further failure (`[webhook] RETRY_BACKOFF`), up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  breaker: HostBreakerOptions;
  /** Name resolution (tests); the system resolver by default. */
  resolver?: Resolver;
}

/** What is kept of a receiver's answer in the history. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export function defaultDelivererOptions(config: HooksContext['config']): DelivererOptions {
  return {
    pollIntervalMs: 1_000,
    concurrency: 8,
    // An attempt ends within DELIVER_TIMEOUT (outboundRequest bounds the whole exchange); twice that plus 5 s leaves
    // room for a busy process to record the outcome, and a dead replica's task is taken up again soon after.
    leaseMs: config.webhook.deliverTimeout * 2_000 + 5_000,
    attempts: config.webhook.deliveryAttempts,
    backoffMs: config.webhook.retryBackoff,
    maxBackoffMs: 3_600_000,
    breaker: { volumeThreshold: 5, errorThresholdPercentage: 50, resetTimeoutMs: 30_000, rollingWindowMs: 60_000 },
  };
}

/** A 5xx answer: counts against the host's circuit (a 4xx is the receiver's deliberate answer and does not). */
class ServerErrorAnswer extends Error {
  constructor(readonly response: OutboundResponse) {
    super(`answered ${response.status}`);
  }
}

/** The signature headers over the exact body sent (deliver.go addDefaultHeaders); empty without a secret. */
export function signatures(secret: string, body: string): { sha1: string; sha256: string } {
  if (secret === '') return { sha1: '', sha256: '' };
  return { sha1: createHmac('sha1', secret).update(body).digest('hex'), sha256: createHmac('sha256', secret).update(body).digest('hex') };
}

/** Every header of a delivery (gitea-facts §6.1; deliver.go addDefaultHeaders and newDefaultRequest). */
export function deliveryHeaders(task: DueTask, rendered: RenderedRequest): Record<string, string> {
  const { sha1, sha256 } = signatures(task.hook.secret, rendered.body);
  const headers: Record<string, string> = {
    'User-Agent': 'GiteaServer',
    'Content-Type': rendered.contentType,
    ...rendered.headers,
    'X-Gitea-Delivery': task.uuid,
    'X-Gitea-Event': task.event,
    'X-Gitea-Event-Type': task.eventType,
    'X-Gitea-Signature': sha256,
    'X-Gitea-Hook-Installation-Target-Type': task.hook.scope,
    'X-Gogs-Delivery': task.uuid,
    'X-Gogs-Event': task.event,
    'X-Gogs-Event-Type': task.eventType,
    'X-Gogs-Signature': sha256,
    'X-Hub-Signature': `sha1=${sha1}`,
    'X-Hub-Signature-256': `sha256=${sha256}`,
    'X-GitHub-Delivery': task.uuid,
    'X-GitHub-Event': task.event,
    'X-GitHub-Event-Type': task.eventType,
    'X-GitHub-Hook-Installation-Target-Type': task.hook.scope,
  };
  if (task.hook.authorizationHeader !== '') headers.Authorization = task.hook.authorizationHeader;
  return headers;
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(',') : value;
  return flat;
}

function answered(response: OutboundResponse): HookResponseInfo {
  return { status: response.status, headers: flatHeaders(response.headers), body: response.body.toString('utf8') };
}

/** No answer: Gitea's `Delivery: <error>` body. */
function unanswered(error: unknown): HookResponseInfo {
  return { status: 0, headers: {}, body: `Delivery: ${error instanceof Error ? error.message : String(error)}` };
}

export function startDeliverer(context: HooksContext, overrides: Partial<DelivererOptions> = {}): Deliverer {
  const { db, logger, config } = context;
  const options = { ...defaultDelivererOptions(config), ...overrides };
  if (config.security.disableWebhooks) {
    // Gitea skips queued tasks while webhooks are disabled (deliver.go); Cairn cancels them so that switching it off
    // resumes with new events only.
    const cancelling = cancelPendingTasks(db.pool).then(
      (count) => logger.info({ cancelled: count }, 'webhooks disabled: pending deliveries cancelled'),
      (error: unknown) => logger.error({ err: error }, 'cancelling pending deliveries failed'),
    );
    const none: Handoff = { leaseMs: 0, take: () => 0, deliver() {}, release() {} };
    return { wake() {}, handoff: () => none, stop: () => cancelling };
  }

  const policy: OutboundPolicy = { usage: 'webhook', allow: parseHostMatchList('webhook.ALLOWED_HOST_LIST', config.webhook.allowedHostList) };
  const timeoutMs = config.webhook.deliverTimeout * 1_000;
  const breakers = new Map<string, CircuitBreaker<[RenderedRequest, Record<string, string>], OutboundResponse>>();
  /** Slots held by open handoffs: the claim loop leaves them free. */
  let reserved = 0;

  const send = async (rendered: RenderedRequest, headers: Record<string, string>): Promise<OutboundResponse> => {
    const method = rendered.method.toUpperCase();
    const response = await outboundRequest(policy, rendered.url, {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.from(rendered.body, 'utf8'),
      timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      resolver: options.resolver,
      rejectUnauthorized: !config.webhook.skipTlsVerify,
    });
    if (response.status >= 500) throw new ServerErrorAnswer(response);
    return response;
  };

  const breakerOf = (host: string) => {
    let breaker = breakers.get(host);
    if (breaker === undefined) {
      breaker = new CircuitBreaker(send, {
        name: `webhook ${host}`,
        timeout: false,
        volumeThreshold: options.breaker.volumeThreshold,
        errorThresholdPercentage: options.breaker.errorThresholdPercentage,
        resetTimeout: options.breaker.resetTimeoutMs,
        rollingCountTimeout: options.breaker.rollingWindowMs,
        // A refused target was never contacted: it says nothing about the host's health (errorFilter true = not a failure).
        errorFilter: (error: unknown) => error instanceof OutboundRefusedError,
      });
      breaker.on('open', () => logger.warn({ host }, 'webhook circuit opened'));
      breaker.on('close', () => logger.info({ host }, 'webhook circuit closed'));
      breakers.set(host, breaker);
    }
    return breaker;
  };

  const failure = (task: DueTask, retryable: boolean): AttemptOutcome =>
    retryable && task.attempts < options.attempts
      ? { kind: 'retry', retryInMs: Math.min(options.backoffMs * 2 ** (task.attempts - 1), options.maxBackoffMs) }
      : { kind: 'failed' };

  const attempt = async (task: DueTask): Promise<void> => {
    const fields = { hook_id: task.hookId, delivery: task.uuid, attempt: task.attempts };
    let rendered: RenderedRequest;
    let host: string;
    try {
      rendered = renderRequest(task.hook, { event: task.event, eventType: task.eventType, payload: task.payload });
      host = new URL(rendered.url).host;
    } catch (error) {
      // Rendering is deterministic: trying again would fail the same way.
      await recordAttempt(db.pool, task, { kind: 'failed' }, null, unanswered(error));
      return;
    }
    const headers = deliveryHeaders(task, rendered);
    const request: HookRequestInfo = {
      url: rendered.url,
      http_method: rendered.method.toUpperCase(),
      // As Gitea's history: the Authorization value is not shown (deliver.go masks it).
      headers: headers.Authorization === undefined ? headers : { ...headers, Authorization: '******' },
    };
    const breaker = breakerOf(host);
    let outcome: AttemptOutcome;
    let response: HookResponseInfo;
    try {
      const answer = await breaker.fire(rendered, headers);
      response = answered(answer);
      outcome = answer.status >= 200 && answer.status < 300 ? { kind: 'delivered' } : failure(task, true);
    } catch (error) {
      if (error instanceof Error && (error as Error & { code?: string }).code === 'EOPENBREAKER') {
        await postponeTask(db.pool, task, options.breaker.resetTimeoutMs);
        logger.debug({ ...fields, host }, 'webhook delivery postponed: circuit open');
        return;
      }
      if (error instanceof ServerErrorAnswer) {
        response = answered(error.response);
        outcome = failure(task, true);
      } else {
        response = unanswered(error);
        // The guard's verdict does not change by trying again.
        outcome = failure(task, !(error instanceof OutboundRefusedError));
      }
    }
    const recorded = await recordAttempt(db.pool, task, outcome, request, response);
    logger.info({ ...fields, status: response.status, outcome: outcome.kind, recorded }, 'webhook delivery attempted');
  };

  const loop = startClaimLoop<DueTask>({
    claim: (room) => claimDueTasks(db.pool, room, options.leaseMs),
    run: attempt,
    concurrency: options.concurrency,
    pollIntervalMs: options.pollIntervalMs,
    reserved: () => reserved,
    onClaimError: (error) => logger.error({ err: error }, 'claiming webhook deliveries failed'),
    onRunError: (error, task) => logger.error({ err: error, delivery: task.uuid }, 'webhook delivery failed to record'),
  });

  const handoff = (): Handoff => {
    let held = 0;
    const free = () => {
      reserved -= held;
      held = 0;
    };
    return {
      leaseMs: options.leaseMs,
      take(wanted) {
        const granted = Math.min(wanted, loop.room());
        held += granted;
        reserved += granted;
        return granted;
      },
      deliver(tasks) {
        free();
        // A stopping deliverer leaves them to their lease, as a crash would (start ignores them).
        for (const task of tasks) loop.start(task);
      },
      release: free,
    };
  };

  return {
    wake: loop.wake,
    handoff,
    async stop() {
      await loop.stop();
      for (const breaker of breakers.values()) breaker.shutdown();
    },
  };
}
