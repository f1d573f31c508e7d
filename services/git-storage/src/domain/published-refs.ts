/**
 * Which ref changes a cairn.git.pushed reports, given the refs as last published (the ledger, store/published-refs.ts)
 * and as they are on disk. Only branches and tags are compared: they are what pushes and the ref-moving RPCs change
 * and publish; Cairn's own namespaces (refs/pull/…) move without an event.
 */
import { uuidFromName } from '@cairn/bus';
import type { RefUpdate } from '../git/ref-update';
import { ZERO_SHA } from '../git/refs';
import { PUSHABLE_REF_PREFIXES } from './pushable-refs';

/** Full ref name → object id. */
export type RefState = Readonly<Record<string, string>>;

export const isPublishedRef = (ref: string): boolean => PUSHABLE_REF_PREFIXES.some((prefix) => ref.startsWith(prefix));

const valueOf = (state: RefState, ref: string): string => (Object.hasOwn(state, ref) ? state[ref] : ZERO_SHA);

/**
 * The state to compare with for a repository that has no ledger yet: the refs now, except that the refs of `updates`
 * (a change already made, or about to be) hold their old values, so that change is still reported.
 */
export function baselineState(current: RefState, updates: readonly RefUpdate[]): RefState {
  const state: Record<string, string> = { ...current };
  for (const update of updates) {
    if (update.oldSha === ZERO_SHA) delete state[update.ref];
    else state[update.ref] = update.oldSha;
  }
  return state;
}

/**
 * `updates` as an event reports them: with the published value as the old one (each event starts where the last one
 * ended, even when something moved the ref unseen in between), leaving out refs that are not branches or tags and
 * updates the ledger shows already.
 */
export function changesFrom(published: RefState, updates: readonly RefUpdate[]): RefUpdate[] {
  return updates
    .filter(({ ref }) => isPublishedRef(ref))
    .map(({ ref, newSha }) => ({ ref, oldSha: valueOf(published, ref), newSha }))
    .filter((change) => change.oldSha !== change.newSha);
}

/** changesFrom of the updates of `claimed` that took effect: `current` holds their new value (receive-pack may apply only some). */
export function claimedChanges(published: RefState, current: RefState, claimed: readonly RefUpdate[]): RefUpdate[] {
  return changesFrom(
    published,
    claimed.filter((update) => valueOf(current, update.ref) === update.newSha),
  );
}

/** Every branch and tag whose value on disk is not the published one, by name. */
export function unpublishedChanges(published: RefState, current: RefState): RefUpdate[] {
  const refs = new Set([...Object.keys(published), ...Object.keys(current)].filter(isPublishedRef));
  return [...refs]
    .sort()
    .map((ref) => ({ ref, oldSha: valueOf(published, ref), newSha: valueOf(current, ref) }))
    .filter((change) => change.oldSha !== change.newSha);
}

/** `published` after `changes`. */
export function stateAfter(published: RefState, changes: readonly RefUpdate[]): RefState {
  const state: Record<string, string> = { ...published };
  for (const { ref, newSha } of changes) {
    if (newSha === ZERO_SHA) delete state[ref];
    else state[ref] = newSha;
  }
  return state;
}

/**
 * The id of a repository's `sequence`-th event (1-based), reporting `changes`: the same change found twice (a
 * retry, a second look at start-up) gets the same id, so the outbox and JetStream keep one. The sequence number is
 * part of it because the same move may really happen again (main back and forth between two commits).
 */
export function pushedEventId(repoId: number, sequence: number, changes: readonly RefUpdate[]): string {
  const moves = changes.map(({ ref, oldSha, newSha }) => `${ref} ${oldSha} ${newSha}`).join('\n');
  return uuidFromName(`cairn.git.pushed:${repoId}:${sequence}\n${moves}`);
}
