/**
 * Wire compatibility checked by machine: response bodies are validated with ajv against Gitea's own API
 * description (the vendored swagger), for the operation and status that answered, so a renamed, missing
 * or mistyped field fails a test. Gitea's Go structs serialise every field, so every described property
 * is required (but for the few Gitea omits when empty, listed below); keys Gitea sends without describing
 * them are allowed.
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

/** Loads the description once and compiles validators on demand. */
export function loadGiteaApi(descriptionFile: string): GiteaApi {
  const description = JSON.parse(readFileSync(descriptionFile, 'utf8')) as Description;
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
    if (status >= 400) {
      // Gitea documents few of its error statuses and gives them no schema; its body is {message, url}.
      const hasMessage = typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string';
      return body === null || body === undefined || body === '' || hasMessage ? [] : [`error body without a message: ${JSON.stringify(body)}`];
    }
    const bare = path.split('?')[0].replace(new RegExp(`^${description.basePath}(?=/)`), '');
    const match = templates.find((t) => t.pattern.test(bare)) ?? templates.find((t) => t.spanning.test(bare));
    if (match === undefined) return [`no path in Gitea's description matches ${bare}`];
    const operation = description.paths[match.template][method.toLowerCase()];
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
