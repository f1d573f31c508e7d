/**
 * `restore-repo --validation` (Gitea's modules/migration/file_format.go validate with the JSON schemas of
 * modules/migration/schemas/: issue.json, milestone.json, label.json, reaction.json): the dump's YAML checked before
 * anything is restored. The schemas are draft-04 objects with `type`, `enum`, `required`, `properties`,
 * `additionalProperties: false`, `items`, `anyOf` and `date-time`, which is all this small checker knows. Gitea's
 * times are YAML timestamps there (converted to RFC 3339 strings before the check); here they are strings already.
 * One departure: issue.json does not list `foreignindex`, which Gitea's own dumper writes for every issue (an untagged
 * Go field), so Gitea refuses its own dumps; it is allowed here.
 */

interface Schema {
  type?: 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';
  format?: 'date-time';
  enum?: readonly string[];
  required?: readonly string[];
  properties?: Readonly<Record<string, Schema>>;
  additionalProperties?: false;
  items?: Schema;
  anyOf?: readonly Schema[];
}

const string: Schema = { type: 'string' };
const number: Schema = { type: 'number' };
const boolean: Schema = { type: 'boolean' };
const dateTime: Schema = { type: 'string', format: 'date-time' };
const optionalDateTime: Schema = { anyOf: [dateTime, { type: 'null' }] };

const reaction: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: { user_id: number, user_name: string, content: string },
  required: ['user_id', 'content'],
};

const label: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: { name: string, color: string, description: string, exclusive: boolean, archived: boolean },
  required: ['name'],
};

const externalUser: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: { external_id: number, login: string, name: string, email: string },
};

const issue: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    number,
    poster_id: number,
    poster_name: string,
    poster_email: string,
    title: string,
    content: string,
    ref: string,
    milestone: string,
    state: { enum: ['closed', 'open'] },
    is_locked: boolean,
    created: dateTime,
    updated: dateTime,
    closed: optionalDateTime,
    closed_by: externalUser,
    close_reason: string,
    labels: { type: 'array', items: label },
    reactions: { type: 'array', items: reaction },
    assignees: { type: 'array', items: string },
    assignee_users: { type: 'array', items: externalUser },
    foreignindex: number,
  },
  required: ['number', 'poster_id', 'poster_name', 'title', 'content', 'state', 'is_locked', 'created', 'updated'],
};

const milestone: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    title: string,
    description: string,
    deadline: optionalDateTime,
    created: dateTime,
    updated: optionalDateTime,
    closed: optionalDateTime,
    state: { enum: ['closed', 'open'] },
  },
  required: ['title', 'description', 'deadline', 'created', 'updated', 'closed', 'state'],
};

/** The list files `--validation` checks, by their name in the dump. */
export const DUMP_SCHEMAS: Readonly<Record<string, Schema>> = {
  'issue.yml': { type: 'array', items: issue },
  'milestone.yml': { type: 'array', items: milestone },
  'label.yml': { type: 'array', items: label },
};

/** RFC 3339 date-time (as the jsonschema library's format check). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** The first violation of `schema` by `value`, as `<where>: <what>`, or undefined. */
export function schemaViolation(schema: Schema, value: unknown, where: string): string | undefined {
  if (schema.anyOf !== undefined) {
    const failures = schema.anyOf.map((option) => schemaViolation(option, value, where));
    return failures.includes(undefined) ? undefined : failures[0];
  }
  if (schema.enum !== undefined && !(typeof value === 'string' && schema.enum.includes(value))) {
    return `${where}: must be one of ${schema.enum.map((item) => JSON.stringify(item)).join(', ')}, not ${JSON.stringify(value)}`;
  }
  if (schema.type !== undefined && typeOf(value) !== schema.type) return `${where}: expected ${schema.type}, but got ${typeOf(value)}`;
  if (schema.format === 'date-time' && !(typeof value === 'string' && DATE_TIME.test(value))) return `${where}: ${JSON.stringify(value)} is not a date-time`;
  if (schema.type === 'array' && schema.items !== undefined) {
    const items = value as unknown[];
    for (let index = 0; index < items.length; index++) {
      const problem = schemaViolation(schema.items, items[index], `${where}[${index}]`);
      if (problem !== undefined) return problem;
    }
  }
  if (schema.type === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in record)) return `${where}: missing property ${JSON.stringify(key)}`;
    for (const [key, entry] of Object.entries(record)) {
      const property = schema.properties?.[key];
      if (property === undefined) {
        if (schema.additionalProperties === false) return `${where}.${key}: additional property not allowed`;
        continue;
      }
      const problem = schemaViolation(property, entry, `${where}.${key}`);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}
