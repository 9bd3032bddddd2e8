// Wrapping a command costs the sandbox runtime ~10 ms of helper processes (`which`, a ripgrep scan
// of the working directory for protected files, glob expansion of deny rules) before bubblewrap
// even starts. The wrap is of a fixed runner script (the command itself travels in the
// environment), so it can be made while the session is idle — after the previous command, while
// the model thinks — and the next command only spawns it. Reused only while it is as good as a
// fresh one: nothing of ours ran or changed files since it was begun (FileActivity), and it is
// at most MAX_AGE_MS old (bounds what other processes can change unseen). Otherwise the command is
// wrapped afresh, exactly as without this.
import { fileActivity as defaultActivity, type FileActivity } from '../util/fileActivity.js';

/** How old a prepared wrap may be and still be used (files changed by others in that time go unseen). */
export const MAX_AGE_MS = 2000;

export interface WrapSource {
  /** Wraps the runner script under the attribution id `id` (violations are looked up by it). */
  wrap(id: string, signal?: AbortSignal): Promise<string>;
  /** Releases one wrap's per-command state (the runtime's cleanupAfterCommand). */
  release(): void;
}

export interface Wrap {
  id: string;
  text: string;
  /** Made in advance (true) or for this command (false). */
  prepared: boolean;
}

interface Pending {
  id: string;
  generation: number;
  at: number;
  text: Promise<string | undefined>;
}

export class PreparedWraps {
  private next?: Pending;
  private count = 0;
  private readonly activity: FileActivity;
  private readonly now: () => number;
  private readonly maxAgeMs: number;

  constructor(
    private readonly source: WrapSource,
    private readonly idPrefix: string,
    opts: { activity?: FileActivity; now?: () => number; maxAgeMs?: number } = {},
  ) {
    this.activity = opts.activity ?? defaultActivity;
    this.now = opts.now ?? Date.now;
    this.maxAgeMs = opts.maxAgeMs ?? MAX_AGE_MS;
  }

  /** Starts making the next command's wrap, unless a valid one is pending or a command of ours runs. */
  prepare(): void {
    if (this.activity.running > 0) return;
    if (this.next) {
      if (this.valid(this.next)) return;
      this.drop(this.next);
    }
    const id = this.newId();
    // A failed preparation is not an error: the command is then wrapped afresh (and that error shown).
    const text = this.source.wrap(id).catch(() => undefined);
    this.next = { id, generation: this.activity.generation, at: this.now(), text };
  }

  /** The wrap for a command about to start: the prepared one if still valid, else one made now. */
  async take(signal?: AbortSignal): Promise<Wrap> {
    const p = this.next;
    this.next = undefined;
    if (p) {
      const text = await p.text;
      // Judged after the wait: whatever started meanwhile counts too.
      if (text !== undefined && this.valid(p)) {
        return { id: p.id, text, prepared: true };
      }
      if (text !== undefined) this.source.release();
    }
    const id = this.newId();
    return { id, text: await this.source.wrap(id, signal), prepared: false };
  }

  /** Drops a pending wrap (its per-command state is released). */
  async discard(): Promise<void> {
    const p = this.next;
    this.next = undefined;
    if (p && (await p.text) !== undefined) this.source.release();
  }

  /** As good as a fresh wrap: nothing of ours happened since it was begun, and it is young enough. */
  private valid(p: Pending): boolean {
    return p.generation === this.activity.generation && this.now() - p.at <= this.maxAgeMs;
  }

  private drop(p: Pending): void {
    if (this.next === p) this.next = undefined;
    void p.text.then((text) => {
      if (text !== undefined) this.source.release();
    });
  }

  private newId(): string {
    return `${this.idPrefix}${++this.count}`;
  }
}
