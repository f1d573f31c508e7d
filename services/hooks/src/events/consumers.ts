/**
 * The durable consumers that turn events into deliveries (Gitea's services/webhook/webhook.go PrepareWebhooks):
 * each event's payloads are built once, only when some active hook that may see the event wants them, and stored
 * with one task per wanting hook in one transaction that also records the event (processOnce), so a redelivered
 * event adds nothing. Which hooks may see an event of repository R owned by O: R's hooks, O's (organization or user)
 * hooks and system hooks — nobody else's, so a private repository's events stay with its owner's hooks.
 *
 * `[security] DISABLE_WEB_HOOKS`: events are acknowledged and nothing is created (Gitea's PrepareWebhook returns
 * early); switching it off again resumes with the events that arrive from then on.
 */
import { type Bus, type BusHandler, type Subscription, processOnce } from '@cairn/bus';
import type { Deliverer } from '../delivery/deliverer';
import type { DueTask } from '../store/tasks';
import { branchPasses, coarseEvent, hookChoosesEvent, hookWantsPayload } from '../domain/event-match';
import { type BuiltPayload, type EventPlan, type PayloadServices, type PlannedPayload, planEvent } from '../payloads';
import { coalescedUsers, loadRepository } from '../payloads/services';
import type { HooksContext } from '../rpc/context';
import { type EventPlace, activeHooksAt, anyHookMaySee, copyDefaultHooks, insertPayload, insertTasks } from '../store/fan-out';
import { GIT_CONSUMER, GIT_FILTER, GIT_STREAM, ISSUES_CONSUMER, ISSUES_FILTER, ISSUES_STREAM, REPOS_CONSUMER, REPOS_FILTER, REPOS_STREAM } from './streams';

/** A payload built for a place, waiting for the transaction that stores it. */
interface StagedPayload {
  place: EventPlace;
  planned: PlannedPayload;
  built: BuiltPayload;
}

/** Where a plan's hooks are: the owner from the event, or from repos when the event does not say (undefined: gone). */
async function placeOf(context: HooksContext, services: PayloadServices, plan: EventPlan): Promise<EventPlace | undefined> {
  if (plan.ownerId !== undefined) return { repoId: plan.repoId, ownerId: plan.ownerId, withRepoHooks: plan.withRepoHooks };
  // Most events find no hook at all: answered without asking repos.
  if (!(await anyHookMaySee(context.db.pool, plan.repoId))) return undefined;
  const item = await loadRepository(services, plan.repoId);
  const ownerId = item?.repository?.ownerId;
  return ownerId === undefined ? undefined : { repoId: plan.repoId, ownerId, withRepoHooks: plan.withRepoHooks };
}

/** Builds the payloads of the plan some candidate hook chose (event type and branch), each once. */
async function stagePlan(context: HooksContext, services: PayloadServices, plan: EventPlan): Promise<StagedPayload[]> {
  const place = await placeOf(context, services, plan);
  if (place === undefined) return [];
  const candidates = await activeHooksAt(context.db.pool, place, { withDefaultHooks: plan.copyDefaultHooks === true });
  const staged: StagedPayload[] = [];
  for (const planned of plan.payloads) {
    const chosen = candidates.some(
      (hook) => hookChoosesEvent(hook.events, planned.eventType) && (planned.branch === undefined || branchPasses(hook.branchFilter, planned.branch)),
    );
    if (!chosen) continue;
    const built = await planned.build();
    if (built !== undefined) staged.push({ place, planned, built });
  }
  return staged;
}

/**
 * Handles one event's plans: returns whether tasks were created. A failure throws, and the bus redelivers. The tasks
 * the deliverer has room for are written claimed and handed to it after commit (Deliverer.handoff): a delivery goes
 * out without waiting for the deliverer's own claim.
 */
export async function fanOutEvent(
  context: HooksContext,
  services: PayloadServices,
  consumer: string,
  eventId: string,
  plans: readonly EventPlan[],
  deliverer: Pick<Deliverer, 'handoff' | 'wake'>,
): Promise<boolean> {
  const staged = (await Promise.all(plans.map((plan) => stagePlan(context, services, plan)))).flat();
  const copyInto = plans.find((plan) => plan.copyDefaultHooks === true)?.repoId;
  if (staged.length === 0 && copyInto === undefined) return false;
  let tasks = 0;
  const claimed: DueTask[] = [];
  const handoff = deliverer.handoff();
  try {
    await processOnce(context.db, consumer, eventId, async (tx) => {
      // A retried transaction starts again from nothing.
      tasks = 0;
      claimed.length = 0;
      if (copyInto !== undefined) await copyDefaultHooks(tx, copyInto);
      for (const { place, planned, built } of staged) {
        // The hooks as they are now, in this transaction, each checked in full (push without commits, branch).
        const facts = { eventType: planned.eventType, branch: planned.branch, pushCommits: built.pushCommits };
        const wanting = (await activeHooksAt(tx, place)).filter((hook) => hookWantsPayload(hook, facts));
        if (wanting.length === 0) continue;
        const payload = await insertPayload(tx, {
          eventId: planned.key,
          eventType: planned.eventType,
          event: coarseEvent(planned.eventType),
          repoId: place.repoId,
          payload: built.payload,
        });
        const inserted = await insertTasks(
          tx,
          { id: payload.id, event: coarseEvent(planned.eventType), eventType: planned.eventType, body: payload.body },
          wanting.map((hook) => hook.id),
          { count: handoff.take(wanting.length), leaseMs: handoff.leaseMs },
        );
        tasks += inserted.count;
        claimed.push(...inserted.claimed);
      }
    });
  } catch (error) {
    handoff.release();
    throw error;
  }
  handoff.deliver(claimed);
  // Tasks the deliverer had no room for wait for its claim.
  if (tasks > claimed.length) deliverer.wake();
  return tasks > 0;
}

/** The handler of one consumer (exported for tests that hand it messages directly). */
export function eventHandler(context: HooksContext, services: PayloadServices, consumer: string, deliverer: Pick<Deliverer, 'handoff' | 'wake'>): BusHandler {
  return async (message) => {
    if (context.config.security.disableWebhooks) return;
    // One repository cache per event: the owner lookup and the payloads ask for the same repository. The payloads'
    // user lookups go to accounts together.
    const clients = { ...services.clients, users: coalescedUsers(services.clients.users) };
    const eventServices: PayloadServices = { ...services, clients, repositories: new Map() };
    const read = planEvent(eventServices, message.subject, message.data);
    if (read === undefined) return;
    if ('problem' in read) {
      context.logger.error({ subject: message.subject, event_id: message.id, problem: read.problem }, 'dropping an unreadable event');
      return;
    }
    if (read.plans.length === 0) return;
    await fanOutEvent(context, eventServices, consumer, read.eventId, read.plans, deliverer);
  };
}

export function startEventConsumers(context: HooksContext, bus: Bus, deliverer: Deliverer): Promise<Subscription[]> {
  const services: PayloadServices = { config: context.config, logger: context.logger, clients: context.clients };
  const bindings: ReadonlyArray<[stream: string, durable: string, filterSubject: string]> = [
    [GIT_STREAM, GIT_CONSUMER, GIT_FILTER],
    [ISSUES_STREAM, ISSUES_CONSUMER, ISSUES_FILTER],
    [REPOS_STREAM, REPOS_CONSUMER, REPOS_FILTER],
  ];
  return Promise.all(
    bindings.map(([stream, durable, filterSubject]) => bus.consume({ stream, durable, filterSubject, handler: eventHandler(context, services, durable, deliverer) })),
  );
}
