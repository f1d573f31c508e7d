import generated from './gen/payload-schemas.json';
import { EVENT_TYPES, PUBLIC_EVENTS, publicEventSpec } from './catalogue';
import { type SchemaDocument, schemaValues } from './compat';

const document: SchemaDocument = generated;
const definitions = document.definitions;

/** The `action` values of a payload's schema; undefined for a payload without an action. */
function actionEnum(payload: string): unknown[] | undefined {
  const action = definitions[payload]?.properties?.action;
  return action === undefined ? undefined : schemaValues(document, action);
}

describe('the public catalogue', () => {
  it('lists every event type Cairn emits, in EVENT_TYPES order, and not wiki', () => {
    expect(PUBLIC_EVENTS.map((spec) => spec.type)).toEqual(EVENT_TYPES.filter((type) => type !== 'wiki'));
    expect(publicEventSpec('wiki')).toBeUndefined();
    expect(publicEventSpec('issue_label')).toMatchObject({ event: 'issues', payload: 'IssuePayload', actions: ['label_updated', 'label_cleared'] });
  });

  it("names payloads that have generated schemas, with actions exactly when the payload has one", () => {
    for (const spec of PUBLIC_EVENTS) {
      expect(definitions[spec.payload]).toBeDefined();
      const actions = actionEnum(spec.payload);
      if (actions === undefined) expect(spec.actions).toEqual([]);
      else {
        expect(spec.actions.length).toBeGreaterThan(0);
        for (const action of spec.actions) expect(actions).toContain(action);
      }
    }
  });

  it("uses every action a payload type declares for some event type (no action the builders cannot give)", () => {
    for (const payload of new Set(PUBLIC_EVENTS.map((spec) => spec.payload))) {
      const listed = new Set(PUBLIC_EVENTS.filter((spec) => spec.payload === payload).flatMap((spec) => spec.actions));
      expect([...listed].sort()).toEqual([...(actionEnum(payload) ?? [])].sort());
    }
  });
});
