import { EVENT_TYPES, type EventType, PUBLIC_EVENTS } from '@cairn/events';
import { type HookEventType, coarseEvent } from '../domain/event-match';

// The stream's event types are the hooks service's, both ways (tsc checks these two lines).
const streamTypesAreHooks: readonly HookEventType[] = EVENT_TYPES;
const hooksTypesAreStream = (type: HookEventType): EventType => type;

describe("@cairn/events' catalogue and the hooks service", () => {
  it("agree on each event type's X-Gitea-Event", () => {
    expect(streamTypesAreHooks.map(hooksTypesAreStream)).toEqual([...EVENT_TYPES]);
    for (const spec of PUBLIC_EVENTS) expect(`${spec.type} → ${coarseEvent(spec.type)}`).toBe(`${spec.type} → ${spec.event}`);
  });
});
