/**
 * Checks response bodies against the definitions of Gitea's own API description (the vendored swagger),
 * with ajv: a body that validates here is one a generated Gitea SDK can read. `exactKeys` also checks that
 * a body has every property of its definition and nothing else, as Gitea's Go structs always serialise.
 *
 * Reusable for any gateway test; a candidate for libs/testing.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const DESCRIPTION_FILE = path.join(__dirname, '..', '..', 'api', 'gitea-api-v1.json');

interface Description {
  definitions: Record<string, { properties?: Record<string, unknown> }>;
}

let ajv: Ajv | undefined;
let description: Description | undefined;
const validators = new Map<string, ValidateFunction>();

function load(): { ajv: Ajv; description: Description } {
  if (ajv === undefined || description === undefined) {
    description = JSON.parse(readFileSync(DESCRIPTION_FILE, 'utf8')) as Description;
    // Swagger 2.0 schemas are a JSON Schema subset with x-go-* annotations: no strict mode.
    ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    for (const format of ['int64', 'uint64']) ajv.addFormat(format, { type: 'number', validate: (n: number) => Number.isInteger(n) });
    ajv.addSchema({ definitions: description.definitions }, 'gitea');
  }
  return { ajv, description };
}

/** Errors of `value` against `#/definitions/<name>`; empty when it is valid. */
export function giteaSchemaErrors(name: string, value: unknown): string[] {
  const { ajv: instance, description: doc } = load();
  if (doc.definitions[name] === undefined) throw new Error(`no definition ${name} in Gitea's description`);
  let validate = validators.get(name);
  if (validate === undefined) {
    validate = instance.compile({ $ref: `gitea#/definitions/${name}` });
    validators.set(name, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

/** Throws unless `value` is a valid `<name>`. */
export function expectGiteaSchema(name: string, value: unknown): void {
  const errors = giteaSchemaErrors(name, value);
  if (errors.length > 0) throw new Error(`not a valid Gitea ${name}:\n${errors.join('\n')}\n${JSON.stringify(value, null, 2)}`);
}

/** Keys Gitea sends that its description leaves out (`User.username` comes from its MarshalJSON). */
const UNDESCRIBED_KEYS: Record<string, string[]> = { User: ['username'] };

/** Throws unless `value` is a valid `<name>` with exactly the properties Gitea sends for it. */
export function expectExactGiteaShape(name: string, value: unknown): void {
  expectGiteaSchema(name, value);
  const { description: doc } = load();
  const expected = [...Object.keys(doc.definitions[name].properties ?? {}), ...(UNDESCRIBED_KEYS[name] ?? [])].sort();
  const actual = Object.keys(value as object).sort();
  const missing = expected.filter((k) => !actual.includes(k));
  const extra = actual.filter((k) => !expected.includes(k));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(`${name} keys differ from Gitea's: missing [${missing.join(', ')}], extra [${extra.join(', ')}]`);
  }
}
