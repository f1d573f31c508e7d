/** `[repository] DISABLE_STARS`: every star route answers 403 (Gitea's `reqStarsEnabled`). */
import { HttpError } from '@cairn/http';
import type { GatewayServices } from '../api/types';

export const STARS_DISABLED_MESSAGE = 'stars disabled by administrator';

export function assertStarsEnabled(services: GatewayServices): void {
  if (services.config.repository.disableStars) throw HttpError.forbidden(STARS_DISABLED_MESSAGE);
}
