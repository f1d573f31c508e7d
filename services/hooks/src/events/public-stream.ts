/**
 * The public event stream's messages (issue 19, docs/events.md): one per built payload, the body the `gitea` webhook
 * type sends for it, on `cairn.events.v1.<visibility>.<event type>` with CloudEvents headers. Written to the outbox
 * in the transaction that records the internal event (consumers.ts), so the relay publishes each once, in order.
 *
 * Visibility is `public` only when an anonymous caller could read what the payload is about, by the API's own rules:
 * `[service] REQUIRE_SIGNIN_VIEW` off, and repos answers the repository to an anonymous viewer (no viewer: Gitea's
 * GetUserRepoPermission for a nil doer, which already says no for a private repository or a limited or private
 * owner) with read access to the unit the event is about. Anything repos does not answer is private (fail closed).
 */
import type { OutboxEvent } from '@cairn/bus';
import { type EventVisibility, cloudEventHeaders, cloudEventType, eventsSubject } from '@cairn/events';
import { UNIT_CODE, UNIT_ISSUES, UNIT_PULLS, UNIT_RELEASES, UNIT_WIKI, accessAtLeast } from '@cairn/gitea-json';
import type { Permission } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { HookEventType } from '../domain/event-match';
import { type GiteaPayload, giteaBody } from '../delivery/formats';
import type { EventPlan } from '../payloads';
import type { PayloadServices } from '../payloads/services';
import type { HooksContext } from '../rpc/context';

/**
 * The unit whose read access the API asks before it shows what each event type is about (Gitea's routers/api/v1/api.go
 * `reqRepoReader(unit.TypeXxx)` on the routes of commits, issues, pulls, releases, wiki); undefined: the repository
 * itself (readable at all, `repository` events).
 */
const UNIT_OF: Readonly<Record<HookEventType, string | undefined>> = {
  create: UNIT_CODE,
  delete: UNIT_CODE,
  fork: UNIT_CODE,
  push: UNIT_CODE,
  status: UNIT_CODE,
  issues: UNIT_ISSUES,
  issue_assign: UNIT_ISSUES,
  issue_label: UNIT_ISSUES,
  issue_milestone: UNIT_ISSUES,
  issue_comment: UNIT_ISSUES,
  pull_request: UNIT_PULLS,
  pull_request_assign: UNIT_PULLS,
  pull_request_label: UNIT_PULLS,
  pull_request_milestone: UNIT_PULLS,
  pull_request_comment: UNIT_PULLS,
  pull_request_review_approved: UNIT_PULLS,
  pull_request_review_rejected: UNIT_PULLS,
  pull_request_review_comment: UNIT_PULLS,
  pull_request_sync: UNIT_PULLS,
  pull_request_review_request: UNIT_PULLS,
  wiki: UNIT_WIKI,
  repository: undefined,
  release: UNIT_RELEASES,
};

/** One built payload of an event, as the stream needs it. */
export interface StreamPayload {
  /** The plan it came from: its repository is the one the event is about (whose hooks get it). */
  plan: EventPlan;
  eventType: HookEventType;
  payload: GiteaPayload;
  /** Its delivery id (store/fan-out.ts payloadDeliveryId): ce-id and Nats-Msg-Id. */
  deliveryId: string;
}

type JsonObject = { readonly [key: string]: unknown };

function objectAt(value: unknown, ...path: string[]): JsonObject | undefined {
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as JsonObject)[key];
  }
  return typeof at === 'object' && at !== null && !Array.isArray(at) ? (at as JsonObject) : undefined;
}

/** The repository objects a payload shows: the event's (`repository`), a fork's original, a pull request's two ends. */
function repositoriesShown(payload: GiteaPayload): JsonObject[] {
  const shown = [objectAt(payload, 'repository'), objectAt(payload, 'forkee'), objectAt(payload, 'pull_request', 'head', 'repo'), objectAt(payload, 'pull_request', 'base', 'repo')];
  return shown.filter((repository): repository is JsonObject => repository !== undefined);
}

function idOf(repository: JsonObject): number | undefined {
  return typeof repository.id === 'number' && repository.id > 0 ? repository.id : undefined;
}

/**
 * Every repository a payload shows must be one an anonymous caller may read, and the event's own repository with read
 * access to the event's unit: a pull request from a private fork, or a fork into a private owner, stays private.
 */
function visibilityOf(item: StreamPayload, anonymous: ReadonlyMap<number, Permission>): EventVisibility {
  const { plan, payload, eventType } = item;
  if (plan.goneRepository !== undefined) {
    // repos no longer has it: what the event says, and its owner as an anonymous caller sees them (accounts' answer).
    const owner = objectAt(payload, 'repository', 'owner');
    return !plan.goneRepository.private && owner?.visibility === 'public' ? 'public' : 'private';
  }
  const own = anonymous.get(plan.repoId);
  const unit = UNIT_OF[eventType];
  if (own === undefined || (unit !== undefined && !accessAtLeast(own.units[unit], 'read'))) return 'private';
  const others = repositoriesShown(payload).map(idOf);
  return others.every((id) => id !== undefined && anonymous.has(id)) ? 'public' : 'private';
}

/** The repositories of `ids` an anonymous caller may read, with what it may do in them: one call to repos. */
async function anonymousPermissions(services: PayloadServices, ids: readonly number[]): Promise<Map<number, Permission>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  // No viewer: repos decides as for the API's anonymous caller.
  const { repositories } = await services.clients.repos.batchGetRepositories({ viewer: undefined, ids: wanted });
  const readable = new Map<number, Permission>();
  for (const { repository, permission } of repositories) if (repository !== undefined && permission !== undefined) readable.set(repository.id, permission);
  return readable;
}

/** `<owner>/<repo>` of the event's repository, as the payload shows it. */
function subjectOf(item: StreamPayload): string {
  const shown = repositoriesShown(item.payload);
  const own = shown.find((repository) => idOf(repository) === item.plan.repoId) ?? shown[0];
  return typeof own?.full_name === 'string' ? own.full_name : '';
}

/**
 * The outbox rows of an event's payloads, in their order. One anonymous repository lookup for the whole event (none
 * under REQUIRE_SIGNIN_VIEW, where everything is private).
 */
export async function publicEvents(
  config: HooksContext['config'],
  services: PayloadServices,
  items: readonly StreamPayload[],
  occurredAt: Date,
): Promise<OutboxEvent[]> {
  const requireSignIn = config.service.requireSigninView;
  const ids = requireSignIn
    ? []
    : items
        .filter((item) => item.plan.goneRepository === undefined)
        .flatMap((item) => [item.plan.repoId, ...repositoriesShown(item.payload).flatMap((repository) => idOf(repository) ?? [])]);
  const anonymous = await anonymousPermissions(services, ids);
  const source = config.server.rootUrl;
  return items.map((item) => {
    const visibility = requireSignIn ? 'private' : visibilityOf(item, anonymous);
    const action = typeof item.payload.action === 'string' ? item.payload.action : undefined;
    const headers = cloudEventHeaders({ id: item.deliveryId, source, type: cloudEventType(item.eventType, action), time: occurredAt, subject: subjectOf(item) });
    return { subject: eventsSubject(visibility, item.eventType), id: item.deliveryId, data: Buffer.from(giteaBody(item.payload), 'utf8'), headers };
  });
}
