/**
 * The durable consumers that turn events into deliveries and the public event stream (Gitea's
 * services/webhook/webhook.go PrepareWebhooks for the first): each event's payloads are built once, every one of them
 * (the stream wants them all), and in one transaction that also records the event (processOnce), so a redelivered
 * event adds nothing:
 * - the payload rows and one task per hook that wants each: which hooks may see an event of repository R owned by O:
 *   R's hooks, O's (organization or user) hooks and system hooks — nobody else's, so a private repository's events
 *   stay with its owner's hooks;
 * - one outbox row per payload for the public stream (public-stream.ts), whose relay publishes it.
 *
 * `[security] DISABLE_WEB_HOOKS`: no payload row or task is created (Gitea's PrepareWebhook returns early), and no
 * default hook is copied; switching it off again delivers the events that arrive from then on. The public stream
 * goes on regardless: it is not a webhook.
 */
import { type Bus, type BusHandler, type Subscription, enqueueEvent, processOnce } from '@cairn/bus';
import type { Deliverer } from '../delivery/deliverer';
import type { DueTask } from '../store/tasks';
import { coarseEvent, hookWantsPayload } from '../domain/event-match';
import { type BuiltPayload, type EventPlan, type PayloadServices, type PlannedPayload, type ReadEvent, planEvent } from '../payloads';
import { coalescedUsers, loadRepository } from '../payloads/services';
import type { HooksContext } from '../rpc/context';
import { type EventPlace, activeHooksAt, copyDefaultHooks, insertPayload, insertTasks, payloadDeliveryId } from '../store/fan-out';
import { publicEvents } from './public-stream';
import { BUS_USAGE } from './bus-usage';

/** A payload built for a plan, waiting for the transaction that stores it. */
interface StagedPayload {
  plan: EventPlan;
  /** Where its hooks are; undefined when the repository is gone and the event names no owner (no hook then). */
  place: EventPlace | undefined;
  planned: PlannedPayload;
  built: BuiltPayload;
  deliveryId: string;
}

/** Where a plan's hooks are: the owner from the event, or from the repository (read once per event, for the payloads too). */
async function placeOf(services: PayloadServices, plan: EventPlan): Promise<EventPlace | undefined> {
  const ownerId = plan.ownerId ?? (await loadRepository(services, plan.repoId))?.repository?.ownerId;
  return ownerId === undefined ? undefined : { repoId: plan.repoId, ownerId, withRepoHooks: plan.withRepoHooks };
}

/** Builds every payload of the plan, each once. */
async function stagePlan(services: PayloadServices, plan: EventPlan): Promise<StagedPayload[]> {
  const place = await placeOf(services, plan);
  const staged: StagedPayload[] = [];
  for (const planned of plan.payloads) {
    const built = await planned.build();
    if (built !== undefined) staged.push({ plan, place, planned, built, deliveryId: payloadDeliveryId(planned.key, planned.eventType) });
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
  read: ReadEvent,
  deliverer: Pick<Deliverer, 'handoff' | 'wake'>,
): Promise<boolean> {
  const webhooks = !context.config.security.disableWebhooks;
  const staged = (await Promise.all(read.plans.map((plan) => stagePlan(services, plan)))).flat();
  const copyInto = webhooks ? read.plans.find((plan) => plan.copyDefaultHooks === true)?.repoId : undefined;
  if (staged.length === 0 && copyInto === undefined) return false;
  const published = await publicEvents(
    context.config,
    services,
    staged.map(({ plan, planned, built, deliveryId }) => ({ plan, eventType: planned.eventType, payload: built.payload, deliveryId })),
    read.occurredAt,
  );
  let tasks = 0;
  const claimed: DueTask[] = [];
  const handoff = deliverer.handoff();
  try {
    await processOnce(context.db, consumer, read.eventId, async (tx) => {
      // A retried transaction starts again from nothing.
      tasks = 0;
      claimed.length = 0;
      if (copyInto !== undefined) await copyDefaultHooks(tx, copyInto);
      for (const event of published) await enqueueEvent(tx, event);
      if (!webhooks) return;
      for (const { place, planned, built } of staged) {
        if (place === undefined) continue;
        // The hooks as they are now, in this transaction (default hooks copied above included), each checked in full
        // (event choice, push without commits, branch).
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
          { ...payload, event: coarseEvent(planned.eventType), eventType: planned.eventType },
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
    await fanOutEvent(context, eventServices, consumer, read, deliverer);
  };
}

export function startEventConsumers(context: HooksContext, bus: Bus, deliverer: Deliverer): Promise<Subscription[]> {
  const services: PayloadServices = { config: context.config, logger: context.logger, clients: context.clients };
  // As declared (one message at a time, in stream order: bus-usage.ts).
  return Promise.all(BUS_USAGE.consumers.map((spec) => bus.consume({ ...spec, handler: eventHandler(context, services, spec.durable, deliverer) })));
}
