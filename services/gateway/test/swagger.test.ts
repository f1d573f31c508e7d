import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type TestGateway, startTestGateway } from './support/harness';

interface Description {
  swagger: string;
  basePath: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { operationId: string }>>;
  definitions: Record<string, unknown>;
  responses: Record<string, unknown>;
  securityDefinitions: Record<string, unknown>;
}

const gitea = JSON.parse(readFileSync(path.join(__dirname, '..', 'api', 'gitea-api-v1.json'), 'utf8')) as Description;
const ROOT_VERSION = (JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

function refsIn(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsIn(v, into));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') into.push(v);
      else refsIn(v, into);
    }
  }
  return into;
}

function resolve(doc: Description, ref: string): unknown {
  const [, section, name] = ref.split('/');
  return (doc as unknown as Record<string, Record<string, unknown>>)[section]?.[name];
}

/** Routes Gitea's description does not have (docs/api.md, Departures from Gitea). */
const CAIRN_ROUTES = [
  ...['repos/{owner}/{repo}', 'orgs/{org}', 'user', 'admin'].flatMap((scope) => [
    `GET /${scope}/hooks/{id}/deliveries`,
    `POST /${scope}/hooks/{id}/deliveries/{uuid}/attempts`,
  ]),
  // An import's task status (Gitea serves it on the web only, at /user/task/{id}).
  'GET /repos/{owner}/{repo}/migration',
];

describe('API description', () => {
  let gw: TestGateway;
  let doc: Description;
  beforeAll(async () => {
    gw = await startTestGateway();
    const res = await gw.fetch('/swagger.v1.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json;charset=utf-8');
    doc = (await res.json()) as Description;
  });
  afterAll(() => gw.close());

  it("is Swagger 2.0 under /api/v1 with Cairn's name and version", () => {
    expect(doc.swagger).toBe('2.0');
    expect(doc.basePath).toBe('/api/v1');
    expect(doc.info.title).toMatch(/Cairn/);
    expect(doc.info.version).toBe(`${gitea.info.version}+cairn-${ROOT_VERSION}`);
    expect(doc.securityDefinitions).toEqual(gitea.securityDefinitions);
  });

  it('describes exactly the registered routes', () => {
    const described = Object.entries(doc.paths)
      .flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    const registered = gw.gateway.routes.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
    expect(described).toEqual(registered);
    expect(described).toEqual(
      [
        'GET /version',
        'GET /settings/api',
        'GET /settings/ui',
        'GET /settings/repository',
        'GET /settings/attachment',
        'GET /user',
        'GET /user/settings',
        'PATCH /user/settings',
        'GET /users/search',
        'GET /users/{username}',
        'GET /users/{username}/repos',
        'GET /users/{username}/heatmap',
        'GET /users/{username}/gpg_keys',
        'GET /user/gpg_keys',
        'POST /user/gpg_keys',
        'GET /user/gpg_keys/{id}',
        'DELETE /user/gpg_keys/{id}',
        'GET /users/{username}/tokens',
        'POST /users/{username}/tokens',
        'DELETE /users/{username}/tokens/{token}',
        'GET /admin/users',
        'POST /admin/users',
        'PATCH /admin/users/{username}',
        'DELETE /admin/users/{username}',
        'POST /admin/users/{username}/rename',
        'GET /admin/orgs',
        'POST /admin/users/{username}/orgs',
        'GET /orgs',
        'POST /orgs',
        'GET /orgs/{org}',
        'PATCH /orgs/{org}',
        'DELETE /orgs/{org}',
        'POST /orgs/{org}/rename',
        'GET /user/orgs',
        'GET /users/{username}/orgs',
        'GET /users/{username}/orgs/{org}/permissions',
        'GET /orgs/{org}/members',
        'GET /orgs/{org}/members/{username}',
        'DELETE /orgs/{org}/members/{username}',
        'GET /orgs/{org}/public_members',
        'GET /orgs/{org}/public_members/{username}',
        'PUT /orgs/{org}/public_members/{username}',
        'DELETE /orgs/{org}/public_members/{username}',
        'GET /orgs/{org}/teams',
        'POST /orgs/{org}/teams',
        'GET /orgs/{org}/teams/search',
        'GET /teams/{id}',
        'PATCH /teams/{id}',
        'DELETE /teams/{id}',
        'GET /teams/{id}/members',
        'GET /teams/{id}/members/{username}',
        'PUT /teams/{id}/members/{username}',
        'DELETE /teams/{id}/members/{username}',
        'GET /teams/{id}/repos',
        'GET /teams/{id}/repos/{org}/{repo}',
        'PUT /teams/{id}/repos/{org}/{repo}',
        'DELETE /teams/{id}/repos/{org}/{repo}',
        'GET /repos/{owner}/{repo}/stargazers',
        'GET /repos/{owner}/{repo}/subscribers',
        'GET /repos/{owner}/{repo}/subscription',
        'PUT /repos/{owner}/{repo}/subscription',
        'DELETE /repos/{owner}/{repo}/subscription',
        'GET /user/starred',
        'GET /user/starred/{owner}/{repo}',
        'PUT /user/starred/{owner}/{repo}',
        'DELETE /user/starred/{owner}/{repo}',
        'GET /users/{username}/starred',
        'GET /user/subscriptions',
        'GET /notifications',
        'PUT /notifications',
        'GET /notifications/new',
        'GET /notifications/threads/{id}',
        'PATCH /notifications/threads/{id}',
        'GET /repos/{owner}/{repo}/notifications',
        'PUT /repos/{owner}/{repo}/notifications',
        'GET /users/{username}/subscriptions',
        'GET /user/repos',
        'POST /user/repos',
        'GET /orgs/{org}/repos',
        'POST /orgs/{org}/repos',
        'POST /org/{org}/repos',
        'GET /repos/search',
        'GET /repos/{owner}/{repo}',
        'PATCH /repos/{owner}/{repo}',
        'DELETE /repos/{owner}/{repo}',
        'GET /repositories/{id}',
        'GET /repos/{owner}/{repo}/forks',
        'POST /repos/{owner}/{repo}/forks',
        'POST /repos/{owner}/{repo}/transfer',
        'POST /repos/{owner}/{repo}/transfer/accept',
        'POST /repos/{owner}/{repo}/transfer/reject',
        'GET /repos/{owner}/{repo}/collaborators',
        'GET /repos/{owner}/{repo}/collaborators/{collaborator}',
        'PUT /repos/{owner}/{repo}/collaborators/{collaborator}',
        'DELETE /repos/{owner}/{repo}/collaborators/{collaborator}',
        'GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission',
        'GET /repos/{owner}/{repo}/teams',
        'GET /repos/{owner}/{repo}/teams/{team}',
        'PUT /repos/{owner}/{repo}/teams/{team}',
        'DELETE /repos/{owner}/{repo}/teams/{team}',
        'GET /repos/{owner}/{repo}/topics',
        'PUT /repos/{owner}/{repo}/topics',
        'PUT /repos/{owner}/{repo}/topics/{topic}',
        'DELETE /repos/{owner}/{repo}/topics/{topic}',
        'GET /topics/search',
        'GET /repos/{owner}/{repo}/branches',
        'POST /repos/{owner}/{repo}/branches',
        'GET /repos/{owner}/{repo}/branches/{branch}',
        'DELETE /repos/{owner}/{repo}/branches/{branch}',
        'PATCH /repos/{owner}/{repo}/branches/{branch}',
        'GET /repos/{owner}/{repo}/branch_protections',
        'POST /repos/{owner}/{repo}/branch_protections',
        'GET /repos/{owner}/{repo}/branch_protections/{name}',
        'PATCH /repos/{owner}/{repo}/branch_protections/{name}',
        'DELETE /repos/{owner}/{repo}/branch_protections/{name}',
        'POST /repos/{owner}/{repo}/branch_protections/priority',
        'GET /repos/{owner}/{repo}/tags',
        'POST /repos/{owner}/{repo}/tags',
        'GET /repos/{owner}/{repo}/tags/{tag}',
        'DELETE /repos/{owner}/{repo}/tags/{tag}',
        'GET /repos/{owner}/{repo}/hooks',
        'POST /repos/{owner}/{repo}/hooks',
        'GET /repos/{owner}/{repo}/hooks/{id}',
        'PATCH /repos/{owner}/{repo}/hooks/{id}',
        'DELETE /repos/{owner}/{repo}/hooks/{id}',
        'POST /repos/{owner}/{repo}/hooks/{id}/tests',
        'GET /orgs/{org}/hooks',
        'POST /orgs/{org}/hooks',
        'GET /orgs/{org}/hooks/{id}',
        'PATCH /orgs/{org}/hooks/{id}',
        'DELETE /orgs/{org}/hooks/{id}',
        'GET /user/hooks',
        'POST /user/hooks',
        'GET /user/hooks/{id}',
        'PATCH /user/hooks/{id}',
        'DELETE /user/hooks/{id}',
        'GET /admin/hooks',
        'POST /admin/hooks',
        'GET /admin/hooks/{id}',
        'PATCH /admin/hooks/{id}',
        'DELETE /admin/hooks/{id}',
        'GET /repos/{owner}/{repo}/tag_protections',
        'POST /repos/{owner}/{repo}/tag_protections',
        'GET /repos/{owner}/{repo}/tag_protections/{id}',
        'PATCH /repos/{owner}/{repo}/tag_protections/{id}',
        'DELETE /repos/{owner}/{repo}/tag_protections/{id}',
        'GET /repos/{owner}/{repo}/commits',
        'GET /repos/{owner}/{repo}/git/commits/{sha}',
        'GET /repos/{owner}/{repo}/statuses/{sha}',
        'POST /repos/{owner}/{repo}/statuses/{sha}',
        'GET /repos/{owner}/{repo}/commits/{ref}/statuses',
        'GET /repos/{owner}/{repo}/commits/{ref}/status',
        'GET /repos/{owner}/{repo}/contents',
        'POST /repos/{owner}/{repo}/contents',
        'GET /repos/{owner}/{repo}/contents/{filepath}',
        'POST /repos/{owner}/{repo}/contents/{filepath}',
        'PUT /repos/{owner}/{repo}/contents/{filepath}',
        'DELETE /repos/{owner}/{repo}/contents/{filepath}',
        'GET /repos/{owner}/{repo}/raw/{filepath}',
        'GET /repos/{owner}/{repo}/media/{filepath}',
        'GET /repos/{owner}/{repo}/archive/{archive}',
        'GET /repos/{owner}/{repo}/releases',
        'POST /repos/{owner}/{repo}/releases',
        'GET /repos/{owner}/{repo}/releases/latest',
        'GET /repos/{owner}/{repo}/releases/{id}',
        'PATCH /repos/{owner}/{repo}/releases/{id}',
        'DELETE /repos/{owner}/{repo}/releases/{id}',
        'GET /repos/{owner}/{repo}/releases/tags/{tag}',
        'DELETE /repos/{owner}/{repo}/releases/tags/{tag}',
        'GET /repos/{owner}/{repo}/releases/{id}/assets',
        'POST /repos/{owner}/{repo}/releases/{id}/assets',
        'GET /repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}',
        'PATCH /repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}',
        'DELETE /repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}',
        'GET /repos/{owner}/{repo}/issues/{index}/reactions',
        'POST /repos/{owner}/{repo}/issues/{index}/reactions',
        'DELETE /repos/{owner}/{repo}/issues/{index}/reactions',
        'GET /repos/{owner}/{repo}/issues/comments/{id}/reactions',
        'POST /repos/{owner}/{repo}/issues/comments/{id}/reactions',
        'DELETE /repos/{owner}/{repo}/issues/comments/{id}/reactions',
        'GET /repos/{owner}/{repo}/issues/{index}/times',
        'POST /repos/{owner}/{repo}/issues/{index}/times',
        'DELETE /repos/{owner}/{repo}/issues/{index}/times',
        'DELETE /repos/{owner}/{repo}/issues/{index}/times/{id}',
        'GET /repos/{owner}/{repo}/times',
        'GET /repos/{owner}/{repo}/times/{user}',
        'GET /user/times',
        'GET /user/stopwatches',
        'POST /repos/{owner}/{repo}/issues/{index}/stopwatch/start',
        'POST /repos/{owner}/{repo}/issues/{index}/stopwatch/stop',
        'DELETE /repos/{owner}/{repo}/issues/{index}/stopwatch/delete',
        'GET /repos/{owner}/{repo}/issues/comments',
        'GET /repos/{owner}/{repo}/issues/comments/{id}',
        'PATCH /repos/{owner}/{repo}/issues/comments/{id}',
        'DELETE /repos/{owner}/{repo}/issues/comments/{id}',
        'GET /repos/{owner}/{repo}/issues/comments/{id}/assets',
        'POST /repos/{owner}/{repo}/issues/comments/{id}/assets',
        'GET /repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}',
        'PATCH /repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}',
        'DELETE /repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}',
        'GET /repos/{owner}/{repo}/issues/{index}/assets',
        'POST /repos/{owner}/{repo}/issues/{index}/assets',
        'GET /repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}',
        'PATCH /repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}',
        'DELETE /repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}',
        'GET /repos/{owner}/{repo}/issues/{index}/comments',
        'POST /repos/{owner}/{repo}/issues/{index}/comments',
        'PATCH /repos/{owner}/{repo}/issues/{index}/comments/{id}',
        'DELETE /repos/{owner}/{repo}/issues/{index}/comments/{id}',
        'GET /repos/{owner}/{repo}/issues/{index}/timeline',
        'GET /repos/{owner}/{repo}/issues/{index}/subscriptions',
        'GET /repos/{owner}/{repo}/issues/{index}/subscriptions/check',
        'PUT /repos/{owner}/{repo}/issues/{index}/subscriptions/{user}',
        'DELETE /repos/{owner}/{repo}/issues/{index}/subscriptions/{user}',
        'GET /repos/issues/search',
        'GET /repos/{owner}/{repo}/issues',
        'POST /repos/{owner}/{repo}/issues',
        'GET /repos/{owner}/{repo}/issues/{index}',
        'PATCH /repos/{owner}/{repo}/issues/{index}',
        'DELETE /repos/{owner}/{repo}/issues/{index}',
        'PUT /repos/{owner}/{repo}/issues/{index}/lock',
        'GET /repos/{owner}/{repo}/labels',
        'POST /repos/{owner}/{repo}/labels',
        'GET /repos/{owner}/{repo}/labels/{id}',
        'GET /repos/{owner}/{repo}/languages',
        'GET /repos/{owner}/{repo}/licenses',
        'PATCH /repos/{owner}/{repo}/labels/{id}',
        'DELETE /repos/{owner}/{repo}/labels/{id}',
        'GET /orgs/{org}/labels',
        'POST /orgs/{org}/labels',
        'GET /orgs/{org}/labels/{id}',
        'PATCH /orgs/{org}/labels/{id}',
        'DELETE /orgs/{org}/labels/{id}',
        'GET /repos/{owner}/{repo}/issues/{index}/labels',
        'POST /repos/{owner}/{repo}/issues/{index}/labels',
        'PUT /repos/{owner}/{repo}/issues/{index}/labels',
        'DELETE /repos/{owner}/{repo}/issues/{index}/labels',
        'DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}',
        'GET /repos/{owner}/{repo}/milestones',
        'POST /repos/{owner}/{repo}/milestones',
        'GET /repos/{owner}/{repo}/milestones/{id}',
        'PATCH /repos/{owner}/{repo}/milestones/{id}',
        'DELETE /repos/{owner}/{repo}/milestones/{id}',
        'DELETE /repos/{owner}/{repo}/issues/{index}/lock',
        'GET /repos/{owner}/{repo}/pulls',
        'POST /repos/{owner}/{repo}/pulls',
        'GET /repos/{owner}/{repo}/pulls/{index}',
        'PATCH /repos/{owner}/{repo}/pulls/{index}',
        'GET /repos/{owner}/{repo}/pulls/{index}.{diffType}',
        'GET /repos/{owner}/{repo}/pulls/{index}/files',
        'GET /repos/{owner}/{repo}/pulls/{index}/commits',
        'GET /repos/{owner}/{repo}/pulls/{base}/{head}',
        'GET /repos/{owner}/{repo}/pulls/{index}/merge',
        'POST /repos/{owner}/{repo}/pulls/{index}/merge',
        'DELETE /repos/{owner}/{repo}/pulls/{index}/merge',
        'POST /repos/{owner}/{repo}/pulls/{index}/requested_reviewers',
        'DELETE /repos/{owner}/{repo}/pulls/{index}/requested_reviewers',
        'GET /repos/{owner}/{repo}/pulls/{index}/reviews',
        'POST /repos/{owner}/{repo}/pulls/{index}/reviews',
        'GET /repos/{owner}/{repo}/pulls/{index}/reviews/{id}',
        'POST /repos/{owner}/{repo}/pulls/{index}/reviews/{id}',
        'DELETE /repos/{owner}/{repo}/pulls/{index}/reviews/{id}',
        'GET /repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments',
        'POST /repos/{owner}/{repo}/pulls/{index}/reviews/{id}/dismissals',
        'POST /repos/{owner}/{repo}/pulls/{index}/reviews/{id}/undismissals',
        'POST /repos/{owner}/{repo}/pulls/comments/{id}/resolve',
        'POST /repos/{owner}/{repo}/pulls/comments/{id}/unresolve',
        'POST /repos/{owner}/{repo}/issues/{index}/pin',
        'DELETE /repos/{owner}/{repo}/issues/{index}/pin',
        'PATCH /repos/{owner}/{repo}/issues/{index}/pin/{position}',
        'GET /repos/{owner}/{repo}/issues/pinned',
        'GET /repos/{owner}/{repo}/pulls/pinned',
        'GET /repos/{owner}/{repo}/new_pin_allowed',
        'POST /repos/{owner}/{repo}/pulls/{index}/update',
        'POST /repos/migrate',
        'POST /repos/{owner}/{repo}/mirror-sync',
        'GET /repos/{owner}/{repo}/push_mirrors',
        'POST /repos/{owner}/{repo}/push_mirrors',
        'GET /repos/{owner}/{repo}/push_mirrors/{name}',
        'DELETE /repos/{owner}/{repo}/push_mirrors/{name}',
        'POST /repos/{owner}/{repo}/push_mirrors-sync',
        ...CAIRN_ROUTES,
      ].sort(),
    );
  });

  it("takes each operation from Gitea's description unchanged, and describes Cairn's own routes itself", () => {
    const own: string[] = [];
    for (const [p, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const giteas = gitea.paths[p]?.[method];
        if (giteas === undefined) own.push(`${method.toUpperCase()} ${p}`);
        else expect(operation).toEqual(giteas);
      }
    }
    expect(own.sort()).toEqual([...CAIRN_ROUTES].sort());
  });

  it('resolves every $ref inside the document, and carries nothing unreferenced', () => {
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect({ ref, found: resolve(doc, ref) !== undefined }).toEqual({ ref, found: true });
    const used = new Set(refs);
    for (const name of Object.keys(doc.definitions)) expect(used.has(`#/definitions/${name}`)).toBe(true);
    for (const name of Object.keys(doc.responses)) expect(used.has(`#/responses/${name}`)).toBe(true);
    expect(Object.keys(doc.definitions)).toEqual(expect.arrayContaining(['User', 'AccessToken', 'CreateUserOption', 'EditUserOption']));
  });

  it('serves a self-contained documentation page at /api/swagger', async () => {
    const res = await gw.fetch('/api/swagger');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; connect-src 'self'/);
    const html = await res.text();
    expect(html).toContain("fetch('../swagger.v1.json')");
    // Nothing from elsewhere: no absolute URLs in src/href attributes.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('redirects /api/v1/swagger to the page with 303', async () => {
    const res = await gw.fetch('/api/v1/swagger', { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/api/swagger');
    // As Go's http.Redirect writes it (Gitea's ctx.Redirect).
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toBe('<a href="/api/swagger">See Other</a>.\n\n');
  });
});

describe('API description with [api] ENABLE_SWAGGER=false', () => {
  it('serves neither the description, nor its page, nor the redirect', async () => {
    const gw = await startTestGateway({ env: { CAIRN__api__ENABLE_SWAGGER: 'false' } });
    try {
      const res = await gw.fetch('/api/v1/swagger', { redirect: 'manual' });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ errors: null, message: 'not found', url: 'http://localhost:3000/api/swagger' });
      expect((await gw.fetch('/swagger.v1.json')).status).toBe(404);
      expect((await gw.fetch('/api/swagger')).status).toBe(404);
    } finally {
      await gw.close();
    }
  });
});
