/**
 * Cairn's API description, generated from the routes the gateway really registers. Each operation is
 * Gitea's own (services/gateway/api/gitea-api-v1.json, Gitea 1.26.3) for the same path and method, so SDK
 * generators produce the same client against Cairn; only the definitions and responses those operations
 * reach are carried over. A Cairn route Gitea does not have brings its own operation object.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface SwaggerOperation {
  operationId: string;
  tags?: string[];
  summary?: string;
  parameters?: unknown[];
  responses: Record<string, unknown>;
  [key: string]: unknown;
}

export interface SwaggerDocument {
  swagger: string;
  info: { title: string; description?: string; version: string; license?: unknown };
  basePath: string;
  paths: Record<string, Partial<Record<HttpMethod, SwaggerOperation>>>;
  definitions?: Record<string, unknown>;
  responses?: Record<string, unknown>;
  securityDefinitions?: Record<string, unknown>;
  security?: unknown[];
  consumes?: string[];
  produces?: string[];
  schemes?: string[];
}

/** Where the vendored description is, from src/ and dist/ alike. */
export const GITEA_DESCRIPTION_FILE = path.join(__dirname, '..', '..', 'api', 'gitea-api-v1.json');

let gitea: SwaggerDocument | undefined;

/** Gitea's API description, read once. */
export function giteaDescription(): SwaggerDocument {
  gitea ??= JSON.parse(readFileSync(GITEA_DESCRIPTION_FILE, 'utf8')) as SwaggerDocument;
  return gitea;
}

export interface DescribedRoute {
  method: HttpMethod;
  /** Swagger-style path below basePath, e.g. `/users/{username}`. */
  path: string;
  operation: SwaggerOperation;
}

const REF_PREFIXES = { definitions: '#/definitions/', responses: '#/responses/' } as const;

/** Every `$ref` string inside `value`. */
function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') into.add(item);
      else collectRefs(item, into);
    }
  }
}

/** The named parts of `source` that `roots` reach, following references inside them too. */
function referencedParts(source: SwaggerDocument, roots: unknown[]): Pick<SwaggerDocument, 'definitions' | 'responses'> {
  const definitions: Record<string, unknown> = {};
  const responses: Record<string, unknown> = {};
  const pending = new Set<string>();
  collectRefs(roots, pending);
  const seen = new Set<string>();
  while (pending.size > 0) {
    const [ref] = pending;
    pending.delete(ref);
    if (seen.has(ref)) continue;
    seen.add(ref);
    let target: unknown;
    if (ref.startsWith(REF_PREFIXES.definitions)) {
      const name = ref.slice(REF_PREFIXES.definitions.length);
      target = source.definitions?.[name];
      if (target !== undefined) definitions[name] = target;
    } else if (ref.startsWith(REF_PREFIXES.responses)) {
      const name = ref.slice(REF_PREFIXES.responses.length);
      target = source.responses?.[name];
      if (target !== undefined) responses[name] = target;
    }
    if (target === undefined) throw new Error(`API description: unresolved reference ${ref}`);
    collectRefs(target, pending);
  }
  const sorted = (record: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { definitions: sorted(definitions), responses: sorted(responses) };
}

/** The description of exactly `routes`, in Gitea's swagger 2.0 frame. */
export function buildApiDescription(source: SwaggerDocument, routes: readonly DescribedRoute[], version: string): SwaggerDocument {
  const paths: SwaggerDocument['paths'] = {};
  for (const route of [...routes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    (paths[route.path] ??= {})[route.method] = route.operation;
  }
  const operations = routes.map((route) => route.operation);
  return {
    swagger: '2.0',
    info: {
      title: 'Cairn API',
      description: "This documentation describes Cairn's API, which speaks Gitea's /api/v1.",
      version,
      license: source.info.license,
    },
    basePath: '/api/v1',
    schemes: source.schemes,
    consumes: source.consumes,
    produces: source.produces,
    paths,
    ...referencedParts(source, operations),
    securityDefinitions: source.securityDefinitions,
    security: source.security,
  };
}
