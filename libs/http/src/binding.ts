/**
 * Request bodies read the way Gitea reads them: JSON decoded into a Go struct (encoding/json) and then
 * checked by `binding` tags (gitea.com/go-chi/binding). What clients observe is reproduced:
 * - an absent or null field is the Go zero value ("" / 0 / false / []), or "not given" for pointer fields;
 * - keys match case-insensitively when there is no exact match; unknown keys are ignored;
 * - a JSON value of the wrong type fails with Go's message, e.g.
 *   `[]: json: cannot unmarshal number into Go struct field CreateUserOption.username of type string`;
 * - rules are checked in struct field order and only the first failure is reported, as `[<GoField>]: <Rule>`
 *   (e.g. `[Username]: Required`). Both are 422.
 */

/** A rule failure's message, the rule's name in go-chi/binding (`Required`, `MaxSize`, `Email`, `In`, `Url`). */
type RuleCheck<T> = (value: T) => string | undefined;

/** A decoded value, or what encoding/json would complain about. */
type Decoded<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      /** The JSON value's kind as Go names it ("string", "number 1.5", …). */
      found: string;
      /** The type named in the error when it is not the field's (an array element's). */
      intoType?: string;
      /** Set for an unparsable time: its text. */
      badTime?: string;
      /** Set when the value is inside a nested struct: the JSON key path below the field, e.g. `enable_time_tracker`. */
      path?: string;
    };

export interface GoField<T> {
  /** The Go field name used in rule messages. */
  readonly goName: string;
  /** The Go type named in unmarshal errors. */
  readonly goType: string;
  /** The value when the key is absent or null. */
  readonly zero: T;
  decode(json: unknown): Decoded<T>;
  /** The first failing rule's message; pointer fields check given values only. */
  check(value: T): string | undefined;
}

export type BindResult<T> = { ok: true; value: T } | { ok: false; message: string };

export interface GoStruct<T> {
  /** Go type name, e.g. `CreateUserOption`. */
  readonly name: string;
  /** Binds a parsed JSON body (`undefined` for an empty body, which Gitea reads as `{}`). */
  bind(body: unknown): BindResult<T>;
}

export interface StringRules {
  /** `Required`: not "". */
  required?: boolean;
  /** `MaxSize(n)`: at most n characters (code points). */
  maxSize?: number;
  /** `Email`: go-chi's e-mail pattern (empty allowed, as with OmitEmpty). */
  email?: boolean;
  /** `In(a,b,…)`: one of the values. */
  in?: readonly string[];
  /** `ValidUrl`: an http(s) URL (empty allowed). */
  url?: boolean;
  /** Gitea's `Username`: a valid user or organization name (`invalid username`). */
  username?: boolean;
  /** `AlphaDashDot`: only ASCII letters, digits, `-`, `_` and `.`. */
  alphaDashDot?: boolean;
  /** Gitea's `GitRefName`: a name git accepts for a branch or tag (empty allowed). */
  gitRefName?: boolean;
}

export interface SliceRules {
  required?: boolean;
}

/** What encoding/json calls a JSON value in "cannot unmarshal <what>". */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value; // string | number
}

// go-chi/binding's EmailPattern, unanchored as Go's MatchString uses it:
// [\w!#$%&'*+/=?^_`{|}~-]+(?:\.[\w!#$%&'*+/=?^_`{|}~-]+)*@(?:[\w](?:[\w-]*[\w])?\.)+[a-zA-Z0-9](?:[\w-]*[\w])?
// Go runs it in linear time; a backtracking engine tried the domain from every start in the local part (quadratic:
// seconds for 40,000 characters). A match exists exactly when some `@` has a local-part character right before it and
// a domain prefix (labels ending in dots, then a letter or digit) right after it, so each `@` is tried once, with the
// domain pattern anchored there; the domain runs of different `@`s do not overlap (`@` is in none).
const EMAIL_LOCAL_CHAR = /[\w!#$%&'*+/=?^_`{|}~-]/;
const EMAIL_DOMAIN = /(?:\w(?:[\w-]*\w)?\.)+[a-zA-Z0-9]/y;

function containsEmail(text: string): boolean {
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    if (at === 0 || !EMAIL_LOCAL_CHAR.test(text[at - 1])) continue;
    EMAIL_DOMAIN.lastIndex = at + 1;
    if (EMAIL_DOMAIN.test(text)) return true;
  }
  return false;
}

// Gitea's validation.IsValidUsername (Go's `\w` is ASCII): a letter or digit first, then letters, digits,
// `-`, `_`, `.`, with no two special characters in a row and none at the end.
function isValidUsername(name: string): boolean {
  return /^[0-9A-Za-z][-.\w]*$/.test(name) && !/[-._]{2,}|[-._]$/.test(name);
}

// go-chi/binding's AlphaDashDotPattern: any character outside the set.
const ALPHA_DASH_DOT_VIOLATION = /[^\w\-.]/;

/**
 * Gitea's git.IsValidRefPattern, as `git check-ref-format` reads a short name: no `..`, `//`, `@{`, space, control
 * character or any of ~^:?*[\; no leading `.`, `/` or `-`; no trailing `/`, `.` or `.lock`; no component starting
 * with `.`.
 */
export function isValidGitRefName(name: string): boolean {
  if (name === '' || name === '@') return false;
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name) || name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  if (/^[-/]/.test(name) || /[/.]$/.test(name)) return false;
  return name.split('/').every((component) => !component.startsWith('.') && !component.endsWith('.lock'));
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function stringRules(rules: StringRules): Array<RuleCheck<string>> {
  const checks: Array<RuleCheck<string>> = [];
  if (rules.required) checks.push((v) => (v === '' ? 'Required' : undefined));
  if (rules.username) checks.push((v) => (isValidUsername(v) ? undefined : 'invalid username'));
  if (rules.alphaDashDot) checks.push((v) => (ALPHA_DASH_DOT_VIOLATION.test(v) ? 'AlphaDashDot' : undefined));
  if (rules.gitRefName) checks.push((v) => (v !== '' && !isValidGitRefName(v) ? 'GitRefName' : undefined));
  if (rules.email) checks.push((v) => (v !== '' && !containsEmail(v) ? 'Email' : undefined));
  if (rules.url) checks.push((v) => (v !== '' && !isHttpUrl(v) ? 'Url' : undefined));
  const { maxSize } = rules;
  if (maxSize !== undefined) checks.push((v) => ([...v].length > maxSize ? 'MaxSize' : undefined));
  const allowed = rules.in;
  if (allowed !== undefined) checks.push((v) => (allowed.includes(v) ? undefined : 'In'));
  return checks;
}

function decodeString(json: unknown): Decoded<string> {
  return typeof json === 'string' ? { ok: true, value: json } : { ok: false, found: jsonKind(json) };
}

function decodeInt64(json: unknown): Decoded<number> {
  if (typeof json !== 'number') return { ok: false, found: jsonKind(json) };
  if (!Number.isInteger(json)) return { ok: false, found: `number ${json}` };
  return { ok: true, value: json };
}

function decodeBool(json: unknown): Decoded<boolean> {
  return typeof json === 'boolean' ? { ok: true, value: json } : { ok: false, found: jsonKind(json) };
}

function decodeStringMap(json: unknown): Decoded<Record<string, string>> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { ok: false, found: jsonKind(json) };
  const entries = Object.entries(json);
  const bad = entries.find(([, value]) => typeof value !== 'string' && value !== null);
  // encoding/json names the element type when a value is wrong.
  if (bad !== undefined) return { ok: false, found: jsonKind(bad[1]), intoType: 'string' };
  return { ok: true, value: Object.fromEntries(entries.map(([key, value]) => [key, typeof value === 'string' ? value : ''])) };
}

function decodeInt64Slice(json: unknown): Decoded<number[]> {
  if (!Array.isArray(json)) return { ok: false, found: jsonKind(json) };
  const bad = json.find((item) => item !== null && (typeof item !== 'number' || !Number.isInteger(item)));
  if (bad !== undefined) return { ok: false, found: typeof bad === 'number' ? `number ${bad}` : jsonKind(bad), intoType: 'int64' };
  return { ok: true, value: json.map((item) => (typeof item === 'number' ? item : 0)) };
}

/** A nested struct's fields, decoded as the outer struct's are (case-insensitive keys, null is absent). */
function decodeStruct<F extends Record<string, GoField<unknown>>>(fields: F, json: unknown): Decoded<FieldsValue<F>> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { ok: false, found: jsonKind(json) };
  const keys = Object.keys(fields);
  const value: Record<string, unknown> = {};
  for (const key of keys) value[key] = fields[key].zero;
  for (const [jsonKey, item] of Object.entries(json)) {
    const key = findKey(keys, jsonKey);
    if (key === undefined || item === null) continue;
    const decoded = fields[key].decode(item);
    if (!decoded.ok) {
      return { ...decoded, intoType: decoded.intoType ?? fields[key].goType, path: decoded.path === undefined ? key : `${key}.${decoded.path}` };
    }
    value[key] = decoded.value;
  }
  return { ok: true, value: value as FieldsValue<F> };
}

function decodeStringSlice(json: unknown): Decoded<string[]> {
  if (!Array.isArray(json)) return { ok: false, found: jsonKind(json) };
  const bad = json.find((item) => typeof item !== 'string' && item !== null);
  // encoding/json names the element type when an element is wrong.
  if (bad !== undefined) return { ok: false, found: jsonKind(bad), intoType: 'string' };
  return { ok: true, value: json.map((item) => (typeof item === 'string' ? item : '')) };
}

// time.Time's UnmarshalJSON accepts RFC 3339 only.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function decodeTime(json: unknown): Decoded<Date> {
  if (typeof json !== 'string') return { ok: false, found: jsonKind(json) };
  const date = new Date(json);
  if (!RFC3339.test(json) || Number.isNaN(date.getTime())) return { ok: false, found: 'string', badTime: json };
  return { ok: true, value: date };
}

function field<T>(goName: string, goType: string, zero: T, decode: (json: unknown) => Decoded<T>, rules: Array<RuleCheck<T>> = []): GoField<T> {
  return {
    goName,
    goType,
    zero,
    decode,
    check: (value) => {
      for (const rule of rules) {
        const failure = rule(value);
        if (failure !== undefined) return failure;
      }
      return undefined;
    },
  };
}

/** A pointer field: absent or null is `undefined`; rules apply to given values only. */
function pointer<T>(inner: GoField<T>): GoField<T | undefined> {
  return {
    goName: inner.goName,
    // encoding/json names the pointed-to type in its errors.
    goType: inner.goType,
    zero: undefined,
    decode: (json) => inner.decode(json),
    check: (value) => (value === undefined ? undefined : inner.check(value)),
  };
}

/** Field builders named after the Go types they stand for. */
export const go = {
  string: (goName: string, rules: StringRules = {}): GoField<string> =>
    field(goName, 'string', '', decodeString, stringRules(rules)),
  stringPtr: (goName: string, rules: StringRules = {}): GoField<string | undefined> =>
    pointer(field(goName, 'string', '', decodeString, stringRules({ ...rules, required: false }))),
  int64: (goName: string): GoField<number> => field(goName, 'int64', 0, decodeInt64),
  int64Ptr: (goName: string): GoField<number | undefined> => pointer(field(goName, 'int64', 0, decodeInt64)),
  bool: (goName: string): GoField<boolean> => field(goName, 'bool', false, decodeBool),
  boolPtr: (goName: string): GoField<boolean | undefined> => pointer(field(goName, 'bool', false, decodeBool)),
  stringSlice: (goName: string, rules: SliceRules = {}): GoField<string[]> =>
    field(goName, '[]string', [] as string[], decodeStringSlice, rules.required ? [(v) => (v.length === 0 ? 'Required' : undefined)] : []),
  /** A slice whose absence (nil) means something else than an empty one, e.g. "leave unchanged". */
  stringSlicePtr: (goName: string): GoField<string[] | undefined> => pointer(field(goName, '[]string', [] as string[], decodeStringSlice)),
  int64Slice: (goName: string): GoField<number[]> => field(goName, '[]int64', [] as number[], decodeInt64Slice),
  stringMap: (goName: string): GoField<Record<string, string>> =>
    field(goName, 'map[string]string', {} as Record<string, string>, decodeStringMap),
  /** A pointer to a nested struct of `fields` (which carry no binding rules, as Gitea's nested option structs). */
  structPtr: <F extends Record<string, GoField<unknown>>>(goName: string, goType: string, fields: F): GoField<FieldsValue<F> | undefined> =>
    pointer(field(goName, goType, {} as FieldsValue<F>, (json) => decodeStruct(fields, json))),
  timePtr: (goName: string): GoField<Date | undefined> =>
    pointer(field(goName, 'time.Time', new Date(0), decodeTime)),
};

type FieldsValue<F extends Record<string, GoField<unknown>>> = { [K in keyof F]: F[K] extends GoField<infer T> ? T : never };

function findKey(keys: readonly string[], jsonKey: string): string | undefined {
  if (keys.includes(jsonKey)) return jsonKey;
  const folded = jsonKey.toLowerCase();
  return keys.find((key) => key.toLowerCase() === folded);
}

type DecodeFailure = Extract<Decoded<unknown>, { ok: false }>;

function unmarshalMessage(struct: string, key: string, failure: DecodeFailure, goType: string): string {
  if (failure.badTime !== undefined) {
    // time.Time quotes the raw JSON text: parsing time "\"abc\"" as "\"2006-01-02T15:04:05Z07:00\""
    return `[]: parsing time ${JSON.stringify(JSON.stringify(failure.badTime))} as "\\"2006-01-02T15:04:05Z07:00\\""`;
  }
  const field = failure.path === undefined ? key : `${key}.${failure.path}`;
  return `[]: json: cannot unmarshal ${failure.found} into Go struct field ${struct}.${field} of type ${failure.intoType ?? goType}`;
}

/**
 * A Go struct of JSON fields; `fields` maps each JSON key to its field, in the struct's declaration order
 * (which decides which rule failure is reported first).
 */
export function goStruct<F extends Record<string, GoField<unknown>>>(name: string, fields: F): GoStruct<FieldsValue<F>> {
  const keys = Object.keys(fields);
  return {
    name,
    bind(body: unknown): BindResult<FieldsValue<F>> {
      const value: Record<string, unknown> = {};
      for (const key of keys) value[key] = fields[key].zero;
      if (body !== undefined && body !== null) {
        if (typeof body !== 'object' || Array.isArray(body)) {
          return { ok: false, message: `[]: json: cannot unmarshal ${jsonKind(body)} into Go value of type structs.${name}` };
        }
        let typeError: string | undefined;
        // Like encoding/json: later keys win, and the first type error is reported once every key is read.
        for (const [jsonKey, json] of Object.entries(body)) {
          const key = findKey(keys, jsonKey);
          if (key === undefined || json === null) continue;
          const decoded = fields[key].decode(json);
          if (decoded.ok) value[key] = decoded.value;
          else typeError ??= unmarshalMessage(name, key, decoded, fields[key].goType);
        }
        if (typeError !== undefined) return { ok: false, message: typeError };
      }
      for (const key of keys) {
        const failure = fields[key].check(value[key]);
        if (failure !== undefined) return { ok: false, message: `[${fields[key].goName}]: ${failure}` };
      }
      return { ok: true, value: value as FieldsValue<F> };
    },
  };
}
