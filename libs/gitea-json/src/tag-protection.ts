/** Protected tag rules in Gitea's shape (services/convert/convert.go `ToTagProtection`). */
import { goTime } from '@cairn/http';
import type { TagProtection } from '@cairn/proto/cairn/repos/v1/tag_protections_service';

/** Gitea's `TagProtection`. */
export interface ApiTagProtection {
  id: number;
  name_pattern: string;
  whitelist_usernames: string[];
  whitelist_teams: string[];
  created_at: string;
  updated_at: string;
}

export function toApiTagProtection(rule: TagProtection): ApiTagProtection {
  return {
    id: rule.id,
    name_pattern: rule.namePattern,
    whitelist_usernames: rule.whitelistUsernames,
    whitelist_teams: rule.whitelistTeams,
    created_at: goTime(rule.created),
    updated_at: goTime(rule.updated),
  };
}
