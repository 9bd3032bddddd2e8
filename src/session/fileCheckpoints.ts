// File checkpoints (enableFileCheckpointing): before the first change a file tool (Write, Edit)
// makes to a file after a user message, the file's content is copied, content-addressed, into
// the session's folder. `rewind_files` then puts every file back as it was at that message:
// for each file changed since, its oldest copy taken at or after the message is its state then
// (a file that did not exist then is deleted). Bash and other processes change files behind our
// back: those changes are not tracked.
import { promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';
import { diffLines } from 'diff';
import { fileActivity } from '../util/fileActivity.js';
import { loadExternal } from '../util/loadExternal.js';
import { logWarning } from '../util/log.js';

/** A file larger than this is not copied (and so cannot be rewound); the host is told. */
export const MAX_CHECKPOINT_FILE_BYTES = 10 * 1024 * 1024;

export type Snapshot = { absent: true } | { absent?: false; hash: string; mode: number };

/** One checkpoint fact as the transcript keeps it: a turn began, or a file was copied in it. */
export type CheckpointRecord = { messageId: string; path?: string; snapshot?: Snapshot };

interface Checkpoint {
  messageId: string;
  files: Map<string, Snapshot>;
}

export interface RewindResult {
  canRewind: boolean;
  error?: string;
  filesChanged?: string[];
  insertions?: number;
  deletions?: number;
}

/** What one turn kept: each copied file, and each it could not copy with the reason. */
export interface TurnBackups {
  files: Array<{ filename: string; file_id: string }>;
  failed: Array<{ filename: string; error: string }>;
}

export class FileCheckpoints {
  private readonly checkpoints: Checkpoint[] = [];
  private turn: TurnBackups = { files: [], failed: [] };

  /**
   * `dir`: where the copies go (the session's folder, file-history/). `record` keeps each fact in
   * the transcript, so a resumed session can still rewind to the messages of earlier runs.
   */
  constructor(
    readonly dir: string,
    private readonly record: (r: CheckpointRecord) => void = () => {},
  ) {}

  /** Rebuild the checkpoints of earlier runs from their records (in transcript order). */
  restore(records: CheckpointRecord[]): void {
    for (const r of records) {
      let cp = this.checkpoints.find((c) => c.messageId === r.messageId);
      if (!cp) this.checkpoints.push((cp = { messageId: r.messageId, files: new Map() }));
      if (r.path && r.snapshot && !cp.files.has(r.path)) cp.files.set(r.path, r.snapshot);
    }
  }

  /** A user message starts: later changes are checkpointed against it. */
  beginTurn(messageId: string): void {
    this.checkpoints.push({ messageId, files: new Map() });
    this.record({ messageId });
  }

  /** The turn's copies so far, and a fresh list for what comes next. */
  takeTurnBackups(): TurnBackups {
    const t = this.turn;
    this.turn = { files: [], failed: [] };
    return t;
  }

  /** Called by a file tool right before it writes `path` (absolute). */
  async beforeWrite(path: string): Promise<void> {
    const cp = this.checkpoints[this.checkpoints.length - 1];
    if (!cp || cp.files.has(path)) return;
    let st;
    try {
      st = await fsp.stat(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        cp.files.set(path, { absent: true });
        this.record({ messageId: cp.messageId, path, snapshot: { absent: true } });
        return;
      }
      throw err;
    }
    if (!st.isFile()) return;
    if (st.size > MAX_CHECKPOINT_FILE_BYTES) {
      const error = `not checkpointed: ${st.size} bytes is over the ${MAX_CHECKPOINT_FILE_BYTES}-byte limit, so rewind_files cannot restore it`;
      logWarning(`${path}: ${error}`);
      this.turn.failed.push({ filename: path, error });
      return;
    }
    const content = await fsp.readFile(path);
    // node:crypto on first use, not at start.
    const { createHash } = loadExternal<typeof import('node:crypto')>('node:crypto');
    const hash = createHash('sha256').update(content).digest('hex');
    const copy = join(this.dir, hash);
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    // Content-addressed: a copy already there is the same bytes.
    await fsp.writeFile(copy, content, { flag: 'wx', mode: 0o600 }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    const snapshot: Snapshot = { hash, mode: st.mode & 0o7777 };
    cp.files.set(path, snapshot);
    this.record({ messageId: cp.messageId, path, snapshot });
    this.turn.files.push({ filename: path, file_id: hash });
  }

  /** Restore (or with dryRun only compare) every file to its state at `messageId`. */
  async rewind(messageId: string, dryRun: boolean): Promise<RewindResult> {
    const at = this.checkpoints.findIndex((c) => c.messageId === messageId);
    if (at < 0) return { canRewind: false, error: `No file checkpoint for user message ${messageId}` };
    const target = new Map<string, Snapshot>();
    for (const cp of this.checkpoints.slice(at))
      for (const [path, snap] of cp.files) if (!target.has(path)) target.set(path, snap);
    const filesChanged: string[] = [];
    let insertions = 0;
    let deletions = 0;
    const plan: Array<{ path: string; snap: Snapshot; content?: Buffer }> = [];
    for (const [path, snap] of target) {
      const now = await fsp.readFile(path).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      });
      let then: Buffer | undefined;
      if (!snap.absent) {
        try {
          then = await fsp.readFile(join(this.dir, snap.hash));
        } catch (err) {
          return { canRewind: false, error: `The checkpoint copy of ${path} is missing (${(err as Error).message})` };
        }
      }
      if (now === undefined && then === undefined) continue;
      if (now !== undefined && then !== undefined && now.equals(then)) continue;
      filesChanged.push(path);
      for (const part of diffLines(
        (now ?? Buffer.alloc(0)).toString('utf8'),
        (then ?? Buffer.alloc(0)).toString('utf8'),
      )) {
        if (part.added) insertions += part.count ?? 0;
        if (part.removed) deletions += part.count ?? 0;
      }
      plan.push({ path, snap, content: then });
    }
    if (!dryRun && plan.length) fileActivity.changed();
    if (!dryRun)
      for (const { path, snap, content } of plan) {
        if (snap.absent || content === undefined) await fsp.rm(path, { force: true });
        else {
          await fsp.mkdir(dirname(path), { recursive: true });
          await fsp.writeFile(path, content, { mode: snap.mode });
          await fsp.chmod(path, snap.mode);
        }
      }
    if (!dryRun && plan.length) fileActivity.changed();
    return { canRewind: true, filesChanged, insertions, deletions };
  }
}
