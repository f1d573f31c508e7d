/**
 * The gitea and gogs types send the payload itself (services/webhook/general.go / gogs.go): indented JSON
 * (json.MarshalIndent: two spaces, `<`, `>`, `&` escaped as Go does), or for content_type form `payload=<url-encoded JSON>`.
 */
import { marshalIndent } from './text';
import type { GiteaPayload, Renderer } from './types';

/** The JSON body the gitea type sends for a payload: also the public event stream's message body. */
export function giteaBody(payload: GiteaPayload): string {
  return marshalIndent(payload);
}

export const renderGitea: Renderer = (hook, content) => {
  const json = giteaBody(content.payload);
  if (hook.contentType === 'form') {
    return { url: hook.url, method: hook.httpMethod || 'POST', contentType: 'application/x-www-form-urlencoded', body: `payload=${encodeURIComponent(json)}` };
  }
  return { url: hook.url, method: hook.httpMethod || 'POST', contentType: 'application/json', body: json };
};
