/** Webhooks in Gitea's shape (services/webhook/general.go `ToHook`): the secret is never answered. */
import { goTime } from '@cairn/http';
import type { Hook } from '@cairn/proto/cairn/hooks/v1/hooks_service';

/** Gitea's `api.Hook`. */
export interface ApiHook {
  id: number;
  type: string;
  name: string;
  branch_filter: string;
  config: Record<string, string>;
  events: string[];
  authorization_header: string;
  active: boolean;
  updated_at: string;
  created_at: string;
}

/** The slack settings ToHook answers in `config` (Gitea's SlackMeta); other types' settings it keeps to itself. */
const SLACK_KEYS = ['channel', 'username', 'icon_url', 'color'] as const;

export function toApiHook(hook: Hook): ApiHook {
  const config: Record<string, string> = { url: hook.url, content_type: hook.contentType };
  if (hook.type === 'slack') {
    for (const key of SLACK_KEYS) config[key] = hook.meta[key] ?? '';
  }
  return {
    id: hook.id,
    type: hook.type,
    name: hook.name,
    branch_filter: hook.branchFilter,
    config,
    events: hook.events,
    authorization_header: hook.authorizationHeader,
    active: hook.active,
    updated_at: goTime(hook.updated),
    created_at: goTime(hook.created),
  };
}
