/**
 * Whether the payload schemas as generated now still keep the promise made by the lock of the current version
 * (schema/<EVENTS_VERSION>.json): a consumer written against the lock must read every payload of that version. So,
 * definition by definition and property by property:
 * - every property the lock has still exists, and one it requires stays required;
 * - a value may not take a JSON type the lock did not allow (a string may not become a number, nor start being null);
 * - no enum value is removed (a `const` counts as an enum of one value);
 * - adding optional properties, and new definitions, is fine (consumers accept properties they do not know).
 * Anything else needs a new EVENTS_VERSION (docs/contributing.md, "Changing a public event payload").
 */

/** A JSON Schema (draft-07) as ts-json-schema-generator writes them. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  description?: string;
}

/** A document of named schemas (`definitions`), as src/gen/payload-schemas.json and the lock are. */
export interface SchemaDocument {
  definitions: Record<string, JsonSchema>;
}

export interface SchemaBreak {
  /** The lock's definition, e.g. `IssuePayload`. */
  definition: string;
  /** Where in it, e.g. `issue.labels[].name`; empty for the definition itself. */
  path: string;
  problem: string;
}

const REF_HEAD = '#/definitions/';

function resolve(document: SchemaDocument, schema: JsonSchema): JsonSchema {
  let current = schema;
  // A chain of aliases ends; a loop of plain $refs would be a broken document, so stop after a few.
  for (let hops = 0; current.$ref !== undefined && hops < 16; hops += 1) {
    const target = document.definitions[current.$ref.startsWith(REF_HEAD) ? current.$ref.slice(REF_HEAD.length) : ''];
    if (target === undefined) throw new Error(`unresolvable $ref ${current.$ref}`);
    current = target;
  }
  return current;
}

/** The JSON types a schema allows (not descending into anyOf). */
function typesOf(schema: JsonSchema): Set<string> {
  if (schema.type !== undefined) return new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
  const values = schema.const !== undefined ? [schema.const] : (schema.enum ?? []);
  if (values.length > 0) return new Set(values.map((value) => (value === null ? 'null' : typeof value)));
  if (schema.properties !== undefined) return new Set(['object']);
  if (schema.items !== undefined) return new Set(['array']);
  return new Set(['any']);
}

/** A schema as its alternatives: an anyOf's members, each resolved. */
function alternatives(document: SchemaDocument, schema: JsonSchema): JsonSchema[] {
  const resolved = resolve(document, schema);
  return resolved.anyOf === undefined ? [resolved] : resolved.anyOf.flatMap((member) => alternatives(document, member));
}

/**
 * The values a schema's alternatives allow (enums, consts, across an anyOf such as `IssueAction | 'synchronized'`);
 * undefined when some alternative allows any value of its type.
 */
export function schemaValues(document: SchemaDocument, schema: JsonSchema): unknown[] | undefined {
  const lists = alternatives(document, schema).map((alternative) => (alternative.const !== undefined ? [alternative.const] : alternative.enum));
  return lists.some((list) => list === undefined) ? undefined : lists.flatMap((list) => list ?? []);
}

function typeName(types: Set<string>): string {
  return [...types].sort().join('|');
}

function minBy<T>(items: readonly T[], score: (item: T) => number): T | undefined {
  let best: { item: T; score: number } | undefined;
  for (const item of items) {
    const value = score(item);
    if (best === undefined || value < best.score) best = { item, score: value };
  }
  return best?.item;
}

class Checker {
  readonly breaks: SchemaBreak[] = [];
  /** Pairs of schema objects under comparison: recursive types ($ref cycles) are compared once. */
  private readonly seen = new Set<string>();
  private readonly ids = new Map<JsonSchema, number>();

  constructor(
    private readonly locked: SchemaDocument,
    private readonly current: SchemaDocument,
    private readonly definition: string,
  ) {}

  private id(schema: JsonSchema): number {
    let id = this.ids.get(schema);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(schema, id);
    }
    return id;
  }

  private report(path: string, problem: string): void {
    this.breaks.push({ definition: this.definition, path, problem });
  }

  compare(lockedSchema: JsonSchema, currentSchema: JsonSchema, path: string): void {
    // A const is a one-value enum: every value the lock names must still be possible (new ones may be added, and a
    // value no longer constrained at all is fine too).
    const [beforeValues, nowValues] = [schemaValues(this.locked, lockedSchema), schemaValues(this.current, currentSchema)];
    if (beforeValues !== undefined && nowValues !== undefined) {
      const key = (value: unknown) => JSON.stringify(value);
      const kept = new Set(nowValues.map(key));
      for (const value of new Set(beforeValues.map(key))) if (!kept.has(value)) this.report(path, `enum value ${value} removed`);
    }
    const lockedAlternatives = alternatives(this.locked, lockedSchema);
    for (const now of alternatives(this.current, currentSchema)) {
      const nowTypes = typesOf(now);
      // The lock's alternative whose types cover this one's: a value of a type the lock never allowed breaks readers.
      const candidates = lockedAlternatives.filter((before) => {
        const beforeTypes = typesOf(before);
        return beforeTypes.has('any') || [...nowTypes].every((type) => beforeTypes.has(type) || (type === 'integer' && beforeTypes.has('number')));
      });
      // Of several (`ApiRepository | DeletedRepository`), the one this alternative keeps best is the one it stands for.
      const match = candidates.length < 2 ? candidates[0] : minBy(candidates, (before) => this.trial(before, now));
      if (match === undefined) {
        this.report(path, `type changed from ${typeName(new Set(lockedAlternatives.flatMap((before) => [...typesOf(before)])))} to ${typeName(nowTypes)}`);
        continue;
      }
      this.compareSame(match, now, path);
    }
  }

  /** How many breaks comparing `now` with `before` alone would find. */
  private trial(before: JsonSchema, now: JsonSchema): number {
    const checker = new Checker(this.locked, this.current, this.definition);
    checker.compareSame(before, now, '');
    return checker.breaks.length;
  }

  private compareSame(before: JsonSchema, now: JsonSchema, path: string): void {
    const pair = `${this.id(before)}:${this.id(now)}`;
    if (this.seen.has(pair)) return;
    this.seen.add(pair);
    if (before.properties !== undefined) {
      const nowProperties = now.properties ?? {};
      const nowRequired = new Set(now.required ?? []);
      for (const [name, schema] of Object.entries(before.properties)) {
        const at = path === '' ? name : `${path}.${name}`;
        const property = nowProperties[name];
        if (property === undefined) {
          this.report(at, 'property removed');
          continue;
        }
        if ((before.required ?? []).includes(name) && !nowRequired.has(name)) this.report(at, 'property no longer required');
        this.compare(schema, property, at);
      }
    }
    if (typeof before.additionalProperties === 'object' && typeof now.additionalProperties === 'object') {
      this.compare(before.additionalProperties, now.additionalProperties, `${path}{}`);
    }
    if (before.items !== undefined && now.items !== undefined) this.compare(before.items, now.items, `${path}[]`);
  }
}

/** What the current schemas break of the lock's promise; empty when they are backward compatible. */
export function schemaBreaks(locked: SchemaDocument, current: SchemaDocument): SchemaBreak[] {
  const breaks: SchemaBreak[] = [];
  for (const [definition, schema] of Object.entries(locked.definitions)) {
    const now = current.definitions[definition];
    if (now === undefined) {
      breaks.push({ definition, path: '', problem: 'definition removed' });
      continue;
    }
    const checker = new Checker(locked, current, definition);
    checker.compare(schema, now, '');
    breaks.push(...checker.breaks);
  }
  return breaks;
}

/** One line per break, for a test's failure message. */
export function describeBreaks(breaks: readonly SchemaBreak[], version: string): string {
  return breaks
    .map((found) => `${found.definition}${found.path === '' ? '' : `.${found.path}`}: ${found.problem}`)
    .concat(breaks.length === 0 ? [] : [`These break the ${version} payloads consumers rely on: bump EVENTS_VERSION (docs/contributing.md).`])
    .join('\n');
}
