/**
 * A payload an event may give, known before it is built: what matching needs (the event type, the branch) and how to
 * build it. Fan-out builds only those some hook wants, each once, whatever the number of hooks.
 */
import type { HookEventType } from '../domain/event-match';
import type { GiteaPayload } from '../delivery/formats/types';

export interface BuiltPayload {
  payload: GiteaPayload;
  /** A push payload's listed commits (Gitea skips none-commit pushes for chat hook types). */
  pushCommits?: number;
}

export interface PlannedPayload {
  /** The hook_payloads.event_id: the event's id, with the ref for payloads of one ref of a push. */
  key: string;
  eventType: HookEventType;
  /** The branch of a push, create or delete (the branch filter's subject); undefined otherwise. */
  branch?: string;
  /** Undefined when what it is about is gone by now (a deleted repository): nothing is sent. */
  build(): Promise<BuiltPayload | undefined>;
}

/** Where an event's hooks are looked up; ownerId may need the repository first (issue events carry none). */
export interface EventPlan {
  repoId: number;
  /** The repository owner when the event says it; otherwise read from repos. */
  ownerId?: number;
  /** False for a deleted repository (its own hooks went with it). */
  withRepoHooks: boolean;
  payloads: PlannedPayload[];
  /** Default hooks to copy into the repository first (cairn.repo.created). */
  copyDefaultHooks?: boolean;
  /**
   * The repository is gone (cairn.repo.deleted), so repos can no longer say who may read it: whether it was private,
   * as the event says (the public stream's visibility, events/visibility.ts).
   */
  goneRepository?: { private: boolean };
}

/** Loads once, on first use: what an event's payloads share is read only if some hook wants one of them. */
export function memo<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}
