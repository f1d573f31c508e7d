/**
 * `GET` and `PATCH /user/settings` (routers/api/v1/user/settings.go): the signed-in user's profile and
 * preferences as Gitea's `UserSettings`; PATCH changes only the fields it is given.
 */
import { EMAIL_NOTIFICATIONS_PREFERENCES } from '@cairn/config';
import { go, goStruct } from '@cairn/http';
import { toApiUserSettings } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { doerOf, json } from '../../api/types';

/** Gitea's `api.UserSettingsOptions`, fields in its order. */
export const UserSettingsOptions = goStruct('UserSettingsOptions', {
  full_name: go.stringPtr('FullName', { maxSize: 100 }),
  website: go.stringPtr('Website', { url: true, maxSize: 255 }),
  description: go.stringPtr('Description', { maxSize: 255 }),
  location: go.stringPtr('Location', { maxSize: 50 }),
  language: go.stringPtr('Language'),
  theme: go.stringPtr('Theme'),
  diff_view_style: go.stringPtr('DiffViewStyle'),
  hide_email: go.boolPtr('HideEmail'),
  hide_activity: go.boolPtr('HideActivity'),
  // Cairn's addition (docs/api.md): Gitea sets the e-mail notification preference on its web settings page only.
  email_notifications_preference: go.stringPtr('EmailNotificationsPreference', { in: EMAIL_NOTIFICATIONS_PREFERENCES }),
});

const settingsRoute = { path: '/user/settings', scope: 'user', auth: 'required', denyPublicOnly: true } as const;

export function registerUserSettingsRoutes(api: ApiRegistry): void {
  api.route({
    ...settingsRoute,
    method: 'get',
    operationId: 'getUserSettings',
    handler: async (ctx) => json(200, toApiUserSettings(doerOf(ctx))),
  });

  api.route({
    ...settingsRoute,
    method: 'patch',
    operationId: 'updateUserSettings',
    body: UserSettingsOptions,
    handler: async (ctx) => {
      const doer = doerOf(ctx);
      const { body } = ctx;
      const { user } = await ctx.services.clients.users.updateUser({
        id: doer.id,
        actorId: doer.id,
        fullName: body.full_name,
        website: body.website,
        description: body.description,
        location: body.location,
        language: body.language,
        theme: body.theme,
        diffViewStyle: body.diff_view_style,
        keepEmailPrivate: body.hide_email,
        keepActivityPrivate: body.hide_activity,
        emailNotificationsPreference: body.email_notifications_preference,
      });
      if (user === undefined) throw new Error('UpdateUser answered without a user');
      // This instance forgets the cached signed-in user at once; the others when the update event reaches them.
      ctx.services.tokenCache.forgetUser(doer.id);
      return json(200, toApiUserSettings(user));
    },
  });
}
