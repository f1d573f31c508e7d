/**
 * Wire compatibility checked by machine: response bodies are validated with ajv against Gitea's own API
 * description (the vendored swagger), for the operation and status that answered, so a renamed, missing
 * or mistyped field fails a test. Gitea's Go structs serialise every field, so every described property
 * is required (but for the few Gitea omits when empty, listed below); keys Gitea sends without describing
 * them are allowed. A status the operation does not list fails too, unless the API documentation's table of
 * allowed statuses names it (`readStatusAllowances`): that table is the one list of such statuses.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';

interface SchemaObject {
  type?: string;
  properties?: Record<string, SchemaObject>;
  items?: SchemaObject;
  required?: string[];
  $ref?: string;
  [key: string]: unknown;
}

interface Operation {
  responses?: Record<string, { $ref?: string; schema?: SchemaObject }>;
}

interface Description {
  basePath: string;
  paths: Record<string, Record<string, Operation>>;
  definitions: Record<string, SchemaObject>;
  responses: Record<string, { schema?: SchemaObject }>;
}

/** Properties Gitea leaves out of a body when they are empty (`omitempty` in its structs). */
const OMITTED_WHEN_EMPTY: Record<string, string[]> = {
  AccessToken: ['sha1', 'created_at', 'last_used_at'],
  ContentsResponse: ['lfs_oid', 'lfs_size'],
  // A fork's base, the issue-tracker settings of a repository with issues, and a pending transfer; external units'
  // settings (Cairn has none).
  Repository: ['parent', 'internal_tracker', 'external_tracker', 'external_wiki', 'repo_transfer'],
  // A pull request's diff totals: only one pull request carries them, a list leaves them out.
  PullRequest: ['additions', 'deletions', 'changed_files'],
};

/**
 * Properties Gitea sends as `null` when they do not apply (Go pointers and nil slices without `omitempty`): a
 * directory's `content`, a submodule's links, a commit author with no account, the file lists of a branch's head
 * commit, an unsigned commit's `signer`.
 */
const NULLABLE: Record<string, string[]> = {
  ContentsResponse: ['encoding', 'content', 'target', 'html_url', 'git_url', 'download_url', 'submodule_git_url'],
  FileLinksResponse: ['git', 'html'],
  Commit: ['author', 'committer', 'files', 'stats'],
  RepoCommit: ['verification'],
  PayloadCommit: ['added', 'removed', 'modified'],
  PayloadCommitVerification: ['signer'],
  // A milestone's dates (Go pointers): closed_at while open, due_on without a due date.
  Milestone: ['updated_at', 'closed_at', 'due_on'],
  // An issue without milestone, assignees, closing time or deadline, and an issue that is no pull request.
  Issue: ['milestone', 'assignee', 'assignees', 'closed_at', 'due_date', 'pull_request'],
  // A pull request's issue fields as for issues, and its merge fields until it is merged.
  PullRequest: ['milestone', 'assignee', 'assignees', 'closed_at', 'due_date', 'merged_at', 'merge_commit_sha', 'merged_by'],
  // An issue's pull-request summary until the pull request is merged (Go's *time.Time).
  PullRequestMeta: ['merged_at'],
  // A head repository that is gone (or that the caller may not read).
  PRBranchInfo: ['repo'],
  // Reviews by users (no team) and teams' review requests (no user), review comments nobody resolved.
  PullReview: ['team', 'user'],
  PullReviewComment: ['resolver'],
  // A timeline entry's references that its type does not have (Go pointers without omitempty).
  TimelineComment: [
    'old_milestone',
    'milestone',
    'tracked_time',
    'ref_issue',
    'ref_comment',
    'label',
    'assignee',
    'assignee_team',
    'resolve_doer',
    'dependent_issue',
  ],
};

/** List properties whose items Gitea may send as `null`: the deleted paths of a multi-file change. */
const NULLABLE_ITEMS: Record<string, string[]> = { FilesResponse: ['files'] };

/**
 * Lists Gitea answers with `null` when they hold nothing (its handler leaves the slice nil): an empty repository's
 * branches, an issue's or a comment's reactions.
 */
const NULL_WHEN_EMPTY = [
  'GET /repos/{owner}/{repo}/branches',
  'GET /repos/{owner}/{repo}/issues/{index}/reactions',
  'GET /repos/{owner}/{repo}/issues/comments/{id}/reactions',
];

/**
 * Statuses Gitea's handler answers instead of the documented one (the handler wins): `POST …/tags` is 201; a
 * transfer that waits for the recipient is 201 with the same body as the 202 of a done one.
 */
const CORRECTED_STATUSES: Record<string, Record<number, number>> = {
  'POST /repos/{owner}/{repo}/tags': { 201: 200 },
  'POST /repos/{owner}/{repo}/transfer': { 201: 202 },
  // MergePullRequest answers a scheduled merge (`merge_when_checks_succeed`) 201 without a body, undescribed.
  'POST /repos/{owner}/{repo}/pulls/{index}/merge': { 201: 200 },
};

/**
 * Named responses whose description contradicts what Gitea's handler sends (the handler wins): `UserSettings` is
 * described as a list, but `GET`/`PATCH /user/settings` answer one object (`convert.User2UserSettings`); topic
 * search answers an object around its list.
 */
const CORRECTED_RESPONSES: Record<string, SchemaObject> = {
  UserSettings: { $ref: '#/definitions/UserSettings' },
  // `GET /topics/search` answers `{"topics": […]}` (repo/topic.go `TopicSearch`), not the bare list described.
  TopicListResponse: {
    type: 'object',
    required: ['topics'],
    properties: { topics: { type: 'array', items: { $ref: '#/definitions/TopicResponse' } } },
  },
};

/**
 * Path parameters Gitea's router reads as the rest of the path (`*`): file paths, and branch, tag and ref names with
 * `/` (a pull request's `{head}`, `owner/repo:branch`, too).
 */
const SPANNING_PARAMS = ['filepath', 'archive', 'branch', 'tag', 'ref', 'head'];

/** Keys Gitea sends that its description leaves out (`User.username` comes from its MarshalJSON). */
const UNDESCRIBED_KEYS: Record<string, string[]> = { User: ['username'] };

/** Statuses an operation may answer although Gitea's description does not list them, with the reason. */
export interface StatusAllowance {
  /** An HTTP method in upper case, or `*` for any. */
  method: string;
  /** A path of Gitea's description (`/repos/{owner}/{repo}`), one ending in `*` for every path it starts, or `*`. */
  path: string;
  statuses: number[];
  /** Only answers whose `message` contains this; undefined for any answer with that status. */
  message?: string;
  reason: string;
}

const ALLOWANCES_BEGIN = '<!-- statuses:begin -->';
const ALLOWANCES_END = '<!-- statuses:end -->';

/**
 * The table of allowed statuses in a markdown file, between `<!-- statuses:begin -->` and `<!-- statuses:end -->`:
 * rows `| \`METHOD /path\` … | 404, 422 | \`part of the message\` or empty | why |`, one or more operations per row. A row
 * that does not parse throws, so a typo cannot quietly allow nothing.
 */
export function readStatusAllowances(markdownFile: string): StatusAllowance[] {
  const text = readFileSync(markdownFile, 'utf8');
  const begin = text.indexOf(ALLOWANCES_BEGIN);
  const end = text.indexOf(ALLOWANCES_END);
  if (begin < 0 || end < begin) throw new Error(`${markdownFile}: no table between ${ALLOWANCES_BEGIN} and ${ALLOWANCES_END}`);
  const rows = text
    .slice(begin + ALLOWANCES_BEGIN.length, end)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('|') && !/^\|\s*(operation|-)/.test(line));
  return rows.flatMap((row) => {
    const [operations, statuses, message, reason] = row.split('|').slice(1, 5).map((cell) => cell?.trim() ?? '');
    const codes = statuses.split(/[\s,]+/).filter((code) => code !== '').map(Number);
    const named = [...operations.matchAll(/`([A-Z]+|\*) (\/[^`]*|\*)`/g)];
    const quoted = /^`([^`]+)`$/.exec(message);
    if (
      named.length === 0 ||
      codes.length === 0 ||
      codes.some((code) => !Number.isInteger(code) || code < 400 || code > 599) ||
      (message !== '' && quoted === null) ||
      reason === ''
    ) {
      throw new Error(`${markdownFile}: a row of allowed statuses needs \`METHOD /path\` operations, 4xx/5xx statuses, an empty or \`quoted\` message and a reason: ${row}`);
    }
    return named.map(([, method, path]) => ({ method, path, statuses: codes, ...(quoted ? { message: quoted[1] } : {}), reason }));
  });
}

export interface ResponseToCheck {
  method: string;
  /** Request path, with or without the `/api/v1` base and query string. */
  path: string;
  status: number;
  body: unknown;
}

export interface GiteaApi {
  /** Problems with a response; empty when it is what Gitea's description says that operation answers. */
  responseErrors(response: ResponseToCheck): string[];
  /** Throws with every problem unless the response matches Gitea's description. */
  expectResponse(response: ResponseToCheck): void;
  /** Problems of `value` as a `#/definitions/<name>`. */
  definitionErrors(name: string, value: unknown): string[];
  /** Throws unless `value` is a valid `<name>` with exactly the keys Gitea sends for it. */
  expectExactShape(name: string, value: unknown): void;
}

/**
 * Loads the description once and compiles validators on demand; `allowedStatuses` are the error statuses operations
 * may answer beyond those the description lists (each must name an operation the description has).
 */
export function loadGiteaApi(descriptionFile: string, allowedStatuses: StatusAllowance[] = []): GiteaApi {
  const description = JSON.parse(readFileSync(descriptionFile, 'utf8')) as Description;
  for (const allowance of allowedStatuses) {
    const known = allowance.path === '*' || allowance.path.endsWith('*')
      ? Object.keys(description.paths).some((template) => template.startsWith(allowance.path.slice(0, -1)))
      : description.paths[allowance.path] !== undefined &&
        (allowance.method === '*' || description.paths[allowance.path][allowance.method.toLowerCase()] !== undefined);
    if (!known) throw new Error(`allowed statuses name ${allowance.method} ${allowance.path}, which Gitea's description does not have`);
  }
  const allows = (method: string, template: string, status: number, message: string | undefined) =>
    allowedStatuses.some(
      (allowance) =>
        allowance.statuses.includes(status) &&
        (allowance.message === undefined || (message?.includes(allowance.message) ?? false)) &&
        (allowance.method === '*' || allowance.method === method) &&
        (allowance.path === '*' || allowance.path === template || (allowance.path.endsWith('*') && template.startsWith(allowance.path.slice(0, -1)))),
    );
  const definitions = Object.fromEntries(
    Object.entries(description.definitions).map(([name, schema]) => [name, withRequiredProperties(name, schema)]),
  );
  // Swagger 2.0 schemas are a JSON Schema subset with x-go-* annotations: no strict mode.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  // Gitea writes "" for an e-mail it does not have or does not show (an organization as a repository owner, a
  // hidden address), although its description says `format: email`.
  const email = addFormats.get('email');
  if (!(email instanceof RegExp)) throw new Error('ajv-formats: the email format is not a regular expression');
  ajv.addFormat('email', { type: 'string', validate: (text: string) => text === '' || email.test(text) });
  for (const format of ['int32', 'int64', 'uint64']) ajv.addFormat(format, { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addSchema({ definitions }, 'gitea');
  const validators = new Map<string, ValidateFunction>();
  const templates = Object.keys(description.paths).map((template) => {
    const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    return {
      template,
      params: (template.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${escaped.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      spanning: new RegExp(`^${escaped.replace(/\{([^}]+)\}/g, (_match, name: string) => (SPANNING_PARAMS.includes(name) ? '.+' : '[^/]+'))}$`),
    };
  });
  // A literal segment beats a parameter (`/user/repos` before `/users/{username}`-like clashes).
  templates.sort((a, b) => a.params - b.params);

  function validatorFor(key: string, schema: SchemaObject): ValidateFunction {
    let validate = validators.get(key);
    if (validate === undefined) {
      validate = ajv.compile(rebase(schema));
      validators.set(key, validate);
    }
    return validate;
  }

  function errorsOf(validate: ValidateFunction, value: unknown): string[] {
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
  }

  function definitionErrors(name: string, value: unknown): string[] {
    if (description.definitions[name] === undefined) throw new Error(`no definition ${name} in Gitea's description`);
    return errorsOf(validatorFor(`#/definitions/${name}`, { $ref: `#/definitions/${name}` }), value);
  }

  function responseErrors({ method, path, status, body }: ResponseToCheck): string[] {
    if (status >= 300 && status < 400) return [];
    const bare = path.split('?')[0].replace(new RegExp(`^${description.basePath}(?=/)`), '');
    const match = templates.find((t) => t.pattern.test(bare)) ?? templates.find((t) => t.spanning.test(bare));
    const operation = match === undefined ? undefined : description.paths[match.template][method.toLowerCase()];
    if (status >= 400) {
      // Gitea gives its error statuses no schema; its body is {message, url}.
      const message = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
      const hasMessage = typeof message === 'string';
      const errors = body === null || body === undefined || body === '' || hasMessage ? [] : [`error body without a message: ${JSON.stringify(body)}`];
      // A path or method Gitea does not route has no operation to list statuses: its router answers 404 or 405.
      if (match === undefined || operation === undefined) return errors;
      const listed = operation.responses?.[String(status)] !== undefined || allows(method.toUpperCase(), match.template, status, hasMessage ? message : undefined);
      if (!listed) errors.push(`Gitea's ${method.toUpperCase()} ${match.template} does not answer ${status} (nor do docs/api.md's allowed statuses list it)`);
      return errors;
    }
    if (match === undefined) return [`no path in Gitea's description matches ${bare}`];
    if (operation === undefined) return [`Gitea's description has no ${method.toUpperCase()} ${match.template}`];
    const operationKey = `${method.toUpperCase()} ${match.template}`;
    if (status === 200 && body === null && NULL_WHEN_EMPTY.includes(operationKey)) return [];
    const documented = CORRECTED_STATUSES[operationKey]?.[status] ?? status;
    const declared = operation.responses?.[String(documented)];
    if (declared === undefined) return [`Gitea's ${method.toUpperCase()} ${match.template} does not answer ${status}`];
    const responseName = declared.$ref?.replace('#/responses/', '');
    const schema =
      responseName !== undefined ? (CORRECTED_RESPONSES[responseName] ?? description.responses[responseName]?.schema) : declared.schema;
    if (schema === undefined) return body === undefined || body === null || body === '' ? [] : [`${status} has no body in Gitea's description`];
    // Raw files and archives: bytes, which JSON Schema does not describe.
    if (schema.type === 'file') return [];
    return errorsOf(validatorFor(`${method} ${match.template} ${status}`, schema), body);
  }

  function expectResponse(response: ResponseToCheck): void {
    const errors = responseErrors(response);
    if (errors.length > 0) {
      throw new Error(
        `${response.method.toUpperCase()} ${response.path} → ${response.status} does not match Gitea's description:\n` +
          `${errors.join('\n')}\n${JSON.stringify(response.body, null, 2)}`,
      );
    }
  }

  function expectExactShape(name: string, value: unknown): void {
    const errors = definitionErrors(name, value);
    const expected = [...Object.keys(description.definitions[name].properties ?? {}), ...(UNDESCRIBED_KEYS[name] ?? [])];
    const actual = Object.keys(value as object);
    const extra = actual.filter((k) => !expected.includes(k));
    if (extra.length > 0) errors.push(`keys Gitea does not send: ${extra.join(', ')}`);
    if (errors.length > 0) throw new Error(`not a valid Gitea ${name}:\n${errors.join('\n')}\n${JSON.stringify(value, null, 2)}`);
  }

  return { responseErrors, expectResponse, definitionErrors, expectExactShape };
}

/** A definition with every property required, but those Gitea omits when empty; those it may send as null allow it. */
function withRequiredProperties(name: string, schema: SchemaObject): SchemaObject {
  if (schema.type !== 'object' || schema.properties === undefined) return schema;
  const optional = OMITTED_WHEN_EMPTY[name] ?? [];
  const nullable = NULLABLE[name] ?? [];
  const nullableItems = NULLABLE_ITEMS[name] ?? [];
  const orNull = (property: SchemaObject): SchemaObject => ({ anyOf: [property, { type: 'null' }] });
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([key, property]) => {
      if (nullable.includes(key)) return [key, orNull(property)];
      if (nullableItems.includes(key) && property.items !== undefined) return [key, { ...property, items: orNull(property.items) }];
      return [key, property];
    }),
  );
  return { ...schema, properties, required: Object.keys(schema.properties).filter((p) => !optional.includes(p)) };
}

/** Points local `#/definitions/…` references at the registered `gitea` document. */
function rebase(schema: SchemaObject): SchemaObject {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/definitions\//g, '"gitea#/definitions/')) as SchemaObject;
}
