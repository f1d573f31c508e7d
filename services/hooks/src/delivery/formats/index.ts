/** Every hook type's renderer (Gitea's webhook_module types, modules/webhook/type.go). */
import { renderDingtalk } from './dingtalk';
import { renderDiscord } from './discord';
import { renderFeishu } from './feishu';
import { renderGitea } from './gitea';
import { renderMatrix } from './matrix';
import { renderMSTeams } from './msteams';
import { renderPackagist } from './packagist';
import { renderSlack } from './slack';
import { renderTelegram } from './telegram';
import type { DeliveryContent, HookTarget, RenderedRequest, Renderer } from './types';
import { renderWechatwork } from './wechatwork';

export type { DeliveryContent, GiteaPayload, HookTarget, RenderedRequest, Renderer } from './types';
export { giteaBody } from './gitea';

const RENDERERS: Readonly<Record<string, Renderer>> = {
  gitea: renderGitea,
  gogs: renderGitea,
  slack: renderSlack,
  discord: renderDiscord,
  dingtalk: renderDingtalk,
  telegram: renderTelegram,
  msteams: renderMSTeams,
  feishu: renderFeishu,
  matrix: renderMatrix,
  wechatwork: renderWechatwork,
  packagist: renderPackagist,
};

/** The request for `hook`; a type without a renderer yet is an error the delivery records. */
export function renderRequest(hook: HookTarget, content: DeliveryContent): RenderedRequest {
  const render = RENDERERS[hook.type];
  if (render === undefined) throw new Error(`no renderer for hook type ${hook.type}`);
  return render(hook, content);
}
