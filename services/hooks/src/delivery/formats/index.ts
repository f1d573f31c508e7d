/** Every hook type's renderer (Gitea's webhook_module types, modules/webhook/type.go). */
import { renderGitea } from './gitea';
import type { DeliveryContent, HookTarget, RenderedRequest, Renderer } from './types';

export type { DeliveryContent, GiteaPayload, HookTarget, RenderedRequest, Renderer } from './types';

const RENDERERS: Readonly<Record<string, Renderer>> = {
  gitea: renderGitea,
  gogs: renderGitea,
};

/** The request for `hook`; a type without a renderer yet is an error the delivery records. */
export function renderRequest(hook: HookTarget, content: DeliveryContent): RenderedRequest {
  const render = RENDERERS[hook.type];
  if (render === undefined) throw new Error(`no renderer for hook type ${hook.type}`);
  return render(hook, content);
}
