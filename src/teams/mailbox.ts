// Team mailboxes: one JSON file per member, `<teamDir>/inboxes/<name>.json`, an array of
// `{from, text, summary, timestamp, read}`. Every change is a locked read-modify-write written to a
// temp file and renamed over the inbox, so two writers (teammates in this process, or another
// process sharing the team directory) never lose a message and a reader never sees half a file.
// A malformed inbox is reported, moved aside (kept for a person to read) and replaced: never a
// crash loop. A failed write throws, so the sender learns the message did not arrive.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { randomUUID } from '../util/ids.js';
import { lazySchema } from '../util/lazySchema.js';
import { lockFile } from './fileLock.js';

// The reference's shape: `read` and `type` may be missing (a message is unread until marked), and
// fields this runtime does not use (msg_id, from_plugin, …) are kept when the inbox is rewritten.
export const inboxMessageSchema = lazySchema(() =>
  z.looseObject({
    from: z.string(),
    text: z.string(),
    summary: z.string().optional(),
    timestamp: z.string(),
    read: z.boolean().default(false),
    color: z.string().optional(),
    type: z.string().optional(),
  }),
);
export type InboxMessage = z.infer<typeof inboxMessageSchema>;
const inboxSchema = lazySchema(() => z.array(inboxMessageSchema));

/** What a sender gives: the time defaults to now, and it always lands unread. */
export interface OutgoingInboxMessage {
  from: string;
  text: string;
  summary?: string;
  color?: string;
  timestamp?: string;
}

export interface MailboxOptions {
  /** `<config>/teams/<team>`. */
  teamDir: string;
  /** A malformed inbox, told once per file (stderr and the host). */
  onProblem: (problem: string) => void;
  /** Called after a message lands in `name`'s inbox (wakes an idle reader at once). */
  onDelivered?: (name: string) => void;
}

/** Names become file names: keep them to a safe alphabet. */
export function inboxFileName(name: string): string {
  return `${name.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
}

export class Mailbox {
  constructor(private readonly o: MailboxOptions) {}

  private get dir(): string {
    return join(this.o.teamDir, 'inboxes');
  }

  path(name: string): string {
    return join(this.dir, inboxFileName(name));
  }

  /**
   * Add one message to `to`'s inbox. Throws when it could not be written. The envelope is the
   * reference 2.1.330's (read from its binary: every inbox write adds `msgV: 1`, a fresh `msg_id`,
   * `type: "message"` and `read: false`), which its readers use to tell messages apart.
   */
  async deliver(to: string, message: OutgoingInboxMessage): Promise<void> {
    await this.update(to, (list) => {
      list.push({
        ...message,
        timestamp: message.timestamp ?? new Date().toISOString(),
        msgV: 1,
        msg_id: randomUUID(),
        type: 'message',
        read: false,
      });
      return true;
    });
    this.o.onDelivered?.(to);
  }

  /** The unread messages of `name`, marked read in the same locked step (each is handed out once). */
  async takeUnread(name: string): Promise<InboxMessage[]> {
    let taken: InboxMessage[] = [];
    await this.update(name, (list) => {
      taken = list.filter((m) => !m.read);
      for (const m of taken) m.read = true;
      return taken.length > 0;
    });
    return taken.map((m) => ({ ...m }));
  }

  /**
   * The unread messages of `name` that `pick` chooses, marked read in one locked step; the others
   * stay unread for whoever reads the inbox next (a permission answer taken mid-turn).
   */
  async takeWhere(name: string, pick: (m: InboxMessage) => boolean): Promise<InboxMessage[]> {
    let taken: InboxMessage[] = [];
    await this.update(name, (list) => {
      taken = list.filter((m) => !m.read && pick(m));
      for (const m of taken) m.read = true;
      return taken.length > 0;
    });
    return taken.map((m) => ({ ...m }));
  }

  /**
   * Whether `name` may have unread messages (a cheap read, no lock). A malformed or unreadable
   * inbox counts as yes, so the locked `takeUnread` gets to report and repair it.
   */
  hasUnreadSafe(name: string): boolean {
    try {
      const { list, repaired } = this.read(name, false);
      return repaired || list.some((m) => !m.read);
    } catch {
      return true;
    }
  }

  /** Everything in `name`'s inbox (tests, ListAgents). */
  all(name: string): InboxMessage[] {
    return this.read(name, false).list;
  }

  /** The inbox's messages; `repaired` when it was malformed (reported and set aside if `repair`). */
  private read(name: string, repair: boolean): { list: InboxMessage[]; repaired: boolean } {
    const file = this.path(name);
    let raw: string;
    try {
      raw = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { list: [], repaired: false };
      throw err;
    }
    if (raw.trim() === '') return { list: [], repaired: false };
    let parsed: unknown;
    let problem: string | undefined;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      problem = `not JSON (${(err as Error).message})`;
    }
    if (!problem) {
      const checked = inboxSchema.safeParse(parsed);
      if (checked.success) return { list: checked.data, repaired: false };
      // Keep the good entries of an array with some bad ones; drop only what cannot be read.
      if (Array.isArray(parsed)) {
        const good = parsed.flatMap((m) => {
          const r = inboxMessageSchema.safeParse(m);
          return r.success ? [r.data] : [];
        });
        problem = `${parsed.length - good.length} malformed message(s) skipped`;
        if (repair) this.setAside(file, raw, problem);
        return { list: good, repaired: true };
      }
      problem = 'not an array of messages';
    }
    if (repair) this.setAside(file, raw, problem!);
    return { list: [], repaired: true };
  }

  /** Report a malformed inbox and keep its bytes beside it, so nothing is silently thrown away. */
  private setAside(file: string, raw: string, problem: string): void {
    const aside = `${file}.corrupt-${Date.now()}`;
    try {
      writeFileSync(aside, raw, { mode: 0o600 });
    } catch {
      /* reported below either way */
    }
    this.o.onProblem(
      `team inbox ${file} is malformed (${problem}); its content was kept in ${aside} and the inbox was reset`,
    );
  }

  /** Locked read-modify-write; `change` returns whether anything changed (no write otherwise). */
  private async update(name: string, change: (list: InboxMessage[]) => boolean): Promise<void> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.path(name);
    const release = await lockFile(`${file}.lock`);
    try {
      const { list: before, repaired } = this.read(name, true);
      if (!change(before) && !repaired) return;
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      try {
        writeFileSync(tmp, JSON.stringify(before, null, 2), { mode: 0o600 });
        renameSync(tmp, file);
      } catch (err) {
        rmSync(tmp, { force: true });
        throw err;
      }
    } finally {
      release();
    }
  }
}
