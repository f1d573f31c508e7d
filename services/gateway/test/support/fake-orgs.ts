/**
 * Programmable stand-ins for accounts' OrgService and TeamService clients: a test sets the answer of the
 * methods it exercises (`orgs.listOrgs = async () => …`) and reads back what the gateway sent (`calls`).
 * Organizations' rules live in accounts and are tested there; gateway tests check the HTTP side only.
 */
import { CairnError } from '@cairn/rpc';
import type { OrgsClient, TeamsClient } from '../../src/clients';

export interface RecordedCall {
  method: string;
  request: unknown;
}

function recordingClient<C extends object>(handlers: Partial<C>, calls: RecordedCall[]): C {
  return new Proxy(handlers, {
    get(target, method: string) {
      return async (request: unknown) => {
        calls.push({ method, request });
        const handler = target[method as keyof C];
        if (typeof handler !== 'function') throw CairnError.internal(`the fake has no answer for ${method}`);
        return (handler as (request: unknown) => Promise<unknown>)(request);
      };
    },
  }) as C;
}

export class FakeOrgs {
  readonly calls: RecordedCall[] = [];
  /** Answers of OrgService methods, set by the tests. */
  readonly orgs: Partial<OrgsClient> = {};
  /** Answers of TeamService methods, set by the tests. */
  readonly teams: Partial<TeamsClient> = {};
  readonly orgsClient: OrgsClient = recordingClient(this.orgs, this.calls);
  readonly teamsClient: TeamsClient = recordingClient(this.teams, this.calls);

  /** The request of the last call to `method`. */
  lastRequest(method: string): unknown {
    return [...this.calls].reverse().find((call) => call.method === method)?.request;
  }
}
