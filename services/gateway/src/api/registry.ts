/**
 * The API's route table. Registering a route finds its operation in Gitea's description (same path and
 * method; the operationId must agree) — a route Gitea does not describe must bring its own — so the
 * generated description can never drift from what is served.
 */
import { type SwaggerDocument, buildApiDescription } from '../swagger/document';
import type { RegisteredRoute, RouteSpec } from './types';

export class ApiRegistry {
  private readonly registered: RegisteredRoute[] = [];

  constructor(private readonly gitea: SwaggerDocument) {}

  route<B = undefined>(spec: RouteSpec<B>): void {
    const where = `${spec.method.toUpperCase()} ${spec.path}`;
    if (this.registered.some((r) => r.method === spec.method && r.path === spec.path)) {
      throw new Error(`${where} is registered twice`);
    }
    const giteaOperation = this.gitea.paths[spec.path]?.[spec.method];
    const operation = spec.operation ?? giteaOperation;
    if (operation === undefined) {
      throw new Error(`${where} is not in Gitea's API description: give the route its own operation object`);
    }
    if (operation.operationId !== spec.operationId) {
      throw new Error(`${where}: operationId ${spec.operationId} does not match the description's ${operation.operationId}`);
    }
    this.registered.push({ ...spec, operation });
  }

  get routes(): readonly RegisteredRoute[] {
    return this.registered;
  }

  /** The API description of exactly the registered routes. */
  describe(version: string): SwaggerDocument {
    return buildApiDescription(this.gitea, this.registered, version);
  }
}
