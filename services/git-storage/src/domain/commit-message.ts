/** The message WriteFiles stores: trimmed like Gitea's, with a `Signed-off-by:` trailer when asked. */
import type { Signature } from '@cairn/proto/cairn/git/v1/git_service';

/** `message` trimmed and newline-terminated; with `signoff`, Gitea's trailer for that identity after a blank line. */
export function commitMessage(message: string, signoff: Signature | undefined): string {
  let text = message.trim();
  if (signoff !== undefined) {
    const trailer = `Signed-off-by: ${signoff.name} <${signoff.email}>`;
    if (!text.split('\n').includes(trailer)) text = text === '' ? trailer : `${text}\n\n${trailer}`;
  }
  return `${text}\n`;
}
