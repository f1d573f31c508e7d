/**
 * The `want` object ids of a protocol v2 fetch request (gitprotocol-v2: `command=fetch`, capability lines, a
 * delimiter `0001`, argument lines, a flush `0000`), read from the request body as it streams by to git.
 *
 * git 2.39's upload-pack checks `uploadpack.allowReachableSHA1InWant` only in protocol v0: in v2 it serves any
 * object it has, so a commit force-pushed away would stay fetchable by id until gc prunes it. git-storage checks
 * the wants of v2 requests itself (smart-http-service.ts).
 */

const OBJECT_ID = /^want ([0-9a-f]{40}|[0-9a-f]{64})$/;

export class FetchWantScanner {
  private pending = Buffer.alloc(0);
  private inArguments = false;
  private done = false;
  /** The object ids wanted so far; all of them once `complete`. */
  readonly wants: string[] = [];

  /** Whether the request's flush packet (or something git itself will refuse) has been seen. */
  get complete(): boolean {
    return this.done;
  }

  /** Takes the next chunk of the request body; only one packet (at most 65520 bytes) is ever held. */
  push(chunk: Uint8Array): void {
    if (this.done) return;
    this.pending = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    while (!this.done && this.pending.length >= 4) {
      const header = this.pending.subarray(0, 4).toString('latin1');
      const length = /^[0-9a-f]{4}$/.test(header) ? Number.parseInt(header, 16) : -1;
      if (length === 1) {
        // The delimiter between the capabilities and the command's arguments.
        this.inArguments = true;
        this.pending = this.pending.subarray(4);
        continue;
      }
      // A flush ends the request; a malformed length is git's to refuse.
      if (length < 4) {
        this.done = true;
        break;
      }
      if (this.pending.length < length) break;
      const payload = this.pending.subarray(4, length).toString('latin1').replace(/\n$/, '');
      this.pending = this.pending.subarray(length);
      const want = this.inArguments ? OBJECT_ID.exec(payload) : null;
      if (want !== null) this.wants.push(want[1]);
    }
  }
}
