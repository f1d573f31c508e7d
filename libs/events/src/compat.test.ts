import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import generated from './gen/payload-schemas.json';
import { type JsonSchema, type SchemaDocument, describeBreaks, schemaBreaks } from './compat';
import { EVENTS_VERSION } from './subjects';

describe('the payload schemas of the current version', () => {
  it(`keep the promise of schema/${EVENTS_VERSION}.json`, () => {
    const file = path.join(__dirname, '..', 'schema', `${EVENTS_VERSION}.json`);
    if (!existsSync(file)) throw new Error(`no lock for ${EVENTS_VERSION}: run \`npm run events-lock\` and commit ${path.relative(process.cwd(), file)}`);
    const lock = JSON.parse(readFileSync(file, 'utf8')) as SchemaDocument;
    const breaks = schemaBreaks(lock, generated as SchemaDocument);
    if (breaks.length > 0) throw new Error(describeBreaks(breaks, EVENTS_VERSION));
  });
});

/** A document with one payload `P` (its properties as given) and a shared `User`. */
function doc(properties: Record<string, JsonSchema>, required: string[], user: JsonSchema = USER): SchemaDocument {
  return { definitions: { P: { type: 'object', properties, required }, User: user } };
}

const USER: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'number' }, login: { type: 'string' }, parent: { anyOf: [{ $ref: '#/definitions/User' }, { type: 'null' }] } },
  required: ['id', 'login', 'parent'],
};
const BASE = doc(
  { action: { type: 'string', enum: ['opened', 'closed'] }, sender: { $ref: '#/definitions/User' }, note: { type: 'string' }, list: { type: 'array', items: { type: 'string' } } },
  ['action', 'sender', 'list'],
);
const problems = (current: SchemaDocument) => schemaBreaks(BASE, current).map((found) => `${found.definition}.${found.path}: ${found.problem}`);

describe('schemaBreaks', () => {
  it('passes the same schemas, added optional properties, added enum values and new definitions', () => {
    expect(problems(BASE)).toEqual([]);
    const grown = doc(
      {
        ...BASE.definitions.P.properties,
        action: { type: 'string', enum: ['opened', 'closed', 'reopened'] },
        extra: { type: 'boolean' },
      },
      ['action', 'sender', 'list'],
    );
    grown.definitions.Other = { type: 'string' };
    expect(problems(grown)).toEqual([]);
  });

  it('fails a removed property, naming the payload and property', () => {
    const { note: _gone, ...rest } = BASE.definitions.P.properties ?? {};
    expect(problems(doc(rest, ['action', 'sender', 'list']))).toEqual(['P.note: property removed']);
    const breaks = schemaBreaks(BASE, doc(rest, ['action', 'sender', 'list']));
    expect(describeBreaks(breaks, 'v1')).toMatch(/P\.note: property removed[\s\S]*bump EVENTS_VERSION/);
  });

  it('fails a removed property of a shared definition, even through a $ref cycle', () => {
    const user: JsonSchema = { ...USER, properties: { id: { type: 'number' }, parent: USER.properties?.parent ?? {} }, required: ['id', 'parent'] };
    expect(problems(doc(BASE.definitions.P.properties ?? {}, ['action', 'sender', 'list'], user))).toEqual([
      'P.sender.login: property removed',
      'User.login: property removed',
    ]);
  });

  it('fails a type change, a value that may now be null and an array becoming a string', () => {
    const changed = doc(
      { ...BASE.definitions.P.properties, note: { type: 'number' }, sender: { anyOf: [{ $ref: '#/definitions/User' }, { type: 'null' }] }, list: { type: 'string' } },
      ['action', 'sender', 'list'],
    );
    expect(problems(changed)).toEqual(['P.sender: type changed from object to null', 'P.note: type changed from string to number', 'P.list: type changed from array to string']);
  });

  it('fails a property that is no longer required and an enum value removed', () => {
    const changed = doc({ ...BASE.definitions.P.properties, action: { type: 'string', enum: ['opened'] } }, ['action', 'sender']);
    expect(problems(changed)).toEqual(['P.action: enum value "closed" removed', 'P.list: property no longer required']);
  });

  it('passes a narrowed type (a nullable value that is never null now)', () => {
    const locked = doc({ n: { anyOf: [{ type: 'number' }, { type: 'null' }] } }, ['n']);
    expect(schemaBreaks(locked, doc({ n: { type: 'number' } }, ['n']))).toEqual([]);
    expect(schemaBreaks(locked, doc({ n: { type: 'string' } }, ['n']))).toEqual([{ definition: 'P', path: 'n', problem: 'type changed from null|number to string' }]);
  });

  it('fails a removed definition', () => {
    const locked = { definitions: { ...BASE.definitions, Old: { type: 'string' } } };
    expect(schemaBreaks(locked, BASE)).toEqual([{ definition: 'Old', path: '', problem: 'definition removed' }]);
  });
});
