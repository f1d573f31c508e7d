/**
 * What a server checks before any handler runs (identity.ts has the credentials):
 * 1. the caller's service token, addressed to this service (UNAUTHENTICATED otherwise);
 * 2. that the RPC names the caller's identity among those that may call it (PERMISSION_DENIED otherwise);
 * 3. the actor assertion, when one travels with the call (UNAUTHENTICATED when it does not verify);
 * 4. that a service other than an edge acts only for the asserted user: every `viewer`, `actor` and `pusher` (also
 *    inside a `scope`) of a signed-in user must be that user, unless the RPC grants the caller `asAnyone` (the few
 *    calls services make for other users or from events, where no edge asked: see each service's callers table).
 */
import type * as grpc from '@grpc/grpc-js';
import { CairnError, Code } from './errors';
import {
  ACTOR_ASSERTION_HEADER,
  type AssertedActor,
  IDENTITIES,
  type Identity,
  type Keyring,
  SERVICE_TOKEN_HEADER,
  isEdge,
} from './identity';
import type { AsyncServiceOf } from './types';

/** Who may call one RPC: identities, and those of them that may act for users no edge asserted. */
export interface CallerGrant {
  readonly callers: readonly Identity[];
  readonly asAnyone?: readonly Identity[];
}

/** Every RPC of a service definition with its grant: the compiler insists on one per method. */
export type Callers<D> = { readonly [K in keyof AsyncServiceOf<D>]: CallerGrant | readonly Identity[] };

/** The caller as authorization established it, handed to the handler's context. */
export interface VerifiedCall {
  caller: Identity;
  /** The verified assertion and its text, passed on by the calls the handler makes. */
  actor: { actor: AssertedActor; assertion: string } | undefined;
}

function grantOf(entry: CallerGrant | readonly Identity[]): CallerGrant {
  return 'callers' in entry ? entry : { callers: entry as readonly Identity[] };
}

function firstValue(metadata: grpc.Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Steps 1 to 3, from the call's metadata alone (streamed requests arrive later). */
export function verifyCall(
  keyring: Keyring,
  self: Identity,
  path: string,
  entry: CallerGrant | readonly Identity[],
  metadata: grpc.Metadata,
): VerifiedCall {
  const token = firstValue(metadata, SERVICE_TOKEN_HEADER);
  if (token === undefined) throw new CairnError(Code.UNAUTHENTICATED, 'unauthenticated: no service credential');
  const caller = keyring.verifyServiceToken(token, self);
  if (!grantOf(entry).callers.includes(caller)) throw new CairnError(Code.PERMISSION_DENIED, `${caller} may not call ${path}`);
  const assertion = firstValue(metadata, ACTOR_ASSERTION_HEADER);
  return { caller, actor: assertion === undefined ? undefined : { actor: keyring.verifyActorAssertion(assertion), assertion } };
}

const ACTOR_FIELDS = ['viewer', 'actor', 'pusher'] as const;

function isActorShape(value: unknown): value is AssertedActor {
  return typeof value === 'object' && value !== null && typeof (value as AssertedActor).userId === 'number';
}

/** The signed-in actors a request names: its own `viewer` / `actor` / `pusher`, and those of its `scope`. */
export function actorsNamedIn(request: unknown): AssertedActor[] {
  if (typeof request !== 'object' || request === null) return [];
  const found: AssertedActor[] = [];
  const collect = (holder: Record<string, unknown>) => {
    for (const field of ACTOR_FIELDS) {
      const value = holder[field];
      if (isActorShape(value) && value.userId > 0) found.push(value);
    }
  };
  const record = request as Record<string, unknown>;
  collect(record);
  const scope = record.scope;
  if (typeof scope === 'object' && scope !== null) collect(scope as Record<string, unknown>);
  return found;
}

/** Step 4 for one request message. */
export function checkActors(path: string, entry: CallerGrant | readonly Identity[], verified: VerifiedCall, request: unknown): void {
  if (isEdge(verified.caller) || (grantOf(entry).asAnyone ?? []).includes(verified.caller)) return;
  const asserted = verified.actor?.actor;
  for (const actor of actorsNamedIn(request)) {
    const same =
      asserted !== undefined &&
      asserted.userId === actor.userId &&
      asserted.isAdmin === Boolean(actor.isAdmin) &&
      asserted.isRestricted === Boolean(actor.isRestricted);
    if (!same) {
      throw new CairnError(Code.PERMISSION_DENIED, `${verified.caller} may not act for user ${actor.userId} in ${path}: no edge asserted it`);
    }
  }
}

/** Every method of `definition` open to every identity, acting for anyone: for test fakes only, never a real service. */
export function anyCaller<D extends grpc.ServiceDefinition>(definition: D): Callers<D> {
  const grant: CallerGrant = { callers: IDENTITIES, asAnyone: IDENTITIES };
  return Object.fromEntries(Object.keys(definition).map((key) => [key, grant])) as unknown as Callers<D>;
}
