// Session start: a fresh session, or one resumed from its transcript (--resume ID, --continue) or
// forked from it (--fork-session: new id, new transcript that starts with the copied lines).
// The transcript is read as a stream; the main conversation is rebuilt so the API accepts it:
// roles alternate, every tool_use has its tool_result, synthetic API-error turns are left out.
import { randomUUID } from '../util/ids.js';
import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { HistoryContent, HistoryMessage } from '../loop/events.js';
import { LineTooLongError, readLines } from '../protocol/lineReader.js';
import { appendUser } from '../loop/history.js';
import { Transcript, transcriptPath } from '../transcript/transcript.js';
import type { MirrorSink } from '../transcript/mirror.js';
import type { CheckpointRecord, Snapshot } from './fileCheckpoints.js';
import { logWarning } from '../util/log.js';
import { DEFERRED_TOOLS_ATTACHMENT } from './transcriptLines.js';
import { resumedToolResults } from './resumedToolResults.js';

/** The transcript line of one file-checkpoint fact (outside the conversation chain). */
export const FILE_HISTORY_LINE = 'file-checkpoint';

/** A session that cannot start as asked (exit 1). */
export class ResumeError extends Error {
  /** Told to the host as an error result (the SDK matches its message), not only on stderr. */
  readonly asResult: boolean;
  constructor(message: string, o: { asResult?: boolean } = {}) {
    super(message);
    this.asResult = o.asResult ?? false;
  }
}

export const INTERRUPTED_TOOL_RESULT = 'interrupted: the run ended before this tool call returned a result';

export interface SessionStart {
  sessionId: string;
  transcript: Transcript | null;
  /** The conversation so far (empty for a fresh session). */
  history: HistoryMessage[];
  /** SessionStart hooks' `source`. */
  source: 'startup' | 'resume';
  /** File-checkpoint records of earlier runs of this session (not carried into a fork). */
  checkpoints: CheckpointRecord[];
  /** The resumed tool results' structured data, by tool_use id (src/session/resumedToolResults.ts). */
  toolResults?: Map<string, unknown>;
}

type Warn = (message: string) => void;

const SESSION_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

/** Which session to start: a new one, or one resumed (the flags of the same names). */
export interface ResumeOptions {
  sessionId?: string;
  resume?: string;
  continue: boolean;
  forkSession: boolean;
  sessionPersistence: boolean;
  resumeSessionAt?: string;
  resumeDropsTurn?: string;
}

export async function startSession(
  o: ResumeOptions,
  env: NodeJS.ProcessEnv,
  cwd: string,
  identity: { version: string; mirror?: MirrorSink },
  warn: Warn = (m) => logWarning(`${m}`),
): Promise<SessionStart> {
  const persist = (id: string) =>
    o.sessionPersistence
      ? new Transcript(transcriptPath(env, cwd, id), { sessionId: id, cwd, version: identity.version }, identity.mirror)
      : null;
  const fresh = (): SessionStart => {
    const sessionId = o.sessionId ?? randomUUID();
    return { sessionId, transcript: persist(sessionId), history: [], source: 'startup', checkpoints: [] };
  };

  let path: string;
  if (o.resume !== undefined) path = transcriptPath(env, cwd, o.resume);
  else if (o.continue) {
    const latest = await latestTranscript(dirname(transcriptPath(env, cwd, 'x')));
    if (!latest) {
      warn(`--continue: no earlier session in ${dirname(transcriptPath(env, cwd, 'x'))}; starting a new one`);
      return fresh();
    }
    path = latest;
  } else return fresh();

  const oldId = basename(path, '.jsonl');
  const sessionId = o.forkSession ? (o.sessionId ?? randomUUID()) : oldId;
  const transcript = persist(sessionId);
  const checkpoints: CheckpointRecord[] = [];
  const entries = await readTranscript(path, warn, (r) => checkpoints.push(r));
  const branch = selectBranch(entries, o.resumeSessionAt, o.resumeDropsTurn);
  const builder = new HistoryBuilder(warn);
  for (const e of branch) if (!builder.add(e.entry)) warn(`${path}: line ${e.lineNo} is not a valid message; skipped`);
  if (transcript) {
    // A fork's transcript starts with the resumed branch, re-labelled with the new session id.
    if (o.forkSession) {
      let parent: string | null = null;
      for (const e of branch) {
        const { session_id: _old, ...rest } = e.entry;
        transcript.appendRaw({ ...rest, parentUuid: parent, uuid: e.uuid, sessionId, cwd: rest.cwd ?? cwd });
        parent = e.uuid;
      }
    }
    // New lines hang below the resumed point: a resume at an earlier message starts a branch.
    transcript.continueFrom(branch.length ? branch[branch.length - 1]!.uuid : null);
  }
  return {
    sessionId,
    transcript,
    history: builder.finish(),
    toolResults: resumedToolResults(branch),
    source: 'resume',
    checkpoints: o.forkSession ? [] : checkpoints,
  };
}

/** The most recently modified session transcript in a project dir, or undefined. */
async function latestTranscript(dir: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return undefined;
  }
  let best: { path: string; mtime: number } | undefined;
  for (const name of names) {
    if (!SESSION_FILE.test(name)) continue;
    const path = join(dir, name);
    try {
      const s = await stat(path);
      if (s.isFile() && (!best || s.mtimeMs > best.mtime)) best = { path, mtime: s.mtimeMs };
    } catch {
      /* vanished meanwhile */
    }
  }
  return best?.path;
}

/** One line of the conversation's chain, with the uuid and parent it has (or was given). */
export interface ChainEntry {
  uuid: string;
  parentUuid: string | null;
  lineNo: number;
  entry: Record<string, unknown>;
}

const CHAIN_TYPES = new Set(['user', 'assistant', 'system', 'attachment', 'progress']);

/**
 * Read a transcript line by line into its chain entries. Lines of earlier builds (no
 * parentUuid) are chained in file order; prompts of those builds had no uuid and get a stable
 * one from their line number. Side-chain lines (subagents) are left out. A line that is not JSON
 * (a torn last line after a crash) is skipped with a warning.
 */
export async function readTranscript(
  path: string,
  warn: Warn,
  onCheckpoint?: (r: CheckpointRecord) => void,
): Promise<ChainEntry[]> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code === 'ENOENT' ? 'no such session transcript' : `cannot read the session transcript (${e.message})`;
    throw new ResumeError(`${why}: ${path}`);
  }
  const out: ChainEntry[] = [];
  let previous: string | null = null;
  try {
    for await (const item of readLines(createReadStream('', { fd: handle.fd, autoClose: false }))) {
      if (item instanceof LineTooLongError) {
        warn(`${path}: ${item.message}`);
        continue;
      }
      let entry: unknown;
      try {
        entry = JSON.parse(item.text);
      } catch {
        warn(`${path}: line ${item.lineNo} is not valid JSON; skipped`);
        continue;
      }
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        warn(`${path}: line ${item.lineNo} is not a transcript entry; skipped`);
        continue;
      }
      const e = entry as Record<string, unknown>;
      if (e.type === FILE_HISTORY_LINE && typeof e.messageId === 'string') {
        onCheckpoint?.({
          messageId: e.messageId,
          ...(typeof e.path === 'string' && e.snapshot && typeof e.snapshot === 'object'
            ? { path: e.path, snapshot: e.snapshot as Snapshot }
            : {}),
        });
        continue;
      }
      if (typeof e.type !== 'string' || !CHAIN_TYPES.has(e.type)) continue; // metadata, results
      if (e.isSidechain === true) continue;
      if ('parentUuid' in e) {
        if (typeof e.uuid !== 'string') continue;
        const parent = typeof e.parentUuid === 'string' ? e.parentUuid : null;
        out.push({ uuid: e.uuid, parentUuid: parent, lineNo: item.lineNo, entry: e });
        previous = e.uuid;
        continue;
      }
      // A line of an earlier build: the protocol line as the host saw it.
      if (e.parent_tool_use_id !== undefined && e.parent_tool_use_id !== null) continue; // a subagent's
      if (e.type === 'system' && e.subtype === 'init') continue;
      const uuid = typeof e.uuid === 'string' ? e.uuid : `legacy-${item.lineNo}`;
      out.push({ uuid, parentUuid: previous, lineNo: item.lineNo, entry: e });
      previous = uuid;
    }
  } catch (err) {
    if (err instanceof ResumeError) throw err;
    throw new ResumeError(`cannot read the session transcript (${(err as Error).message}): ${path}`);
  } finally {
    await handle.close();
  }
  return out;
}

/**
 * The branch to resume: from the root to `at` when given, else to the newest leaf (the last
 * written line that no other line continues). Lines on other branches are ignored. With
 * `dropsTurn`, every main-line entry past `at` must belong to that prompt's turn.
 */
export function selectBranch(entries: ChainEntry[], at?: string, dropsTurn?: string): ChainEntry[] {
  const byUuid = new Map<string, ChainEntry>();
  for (const e of entries) byUuid.set(e.uuid, e);
  const parents = new Set<string>();
  for (const e of entries) if (e.parentUuid) parents.add(e.parentUuid);
  const walk = (from: ChainEntry | undefined): ChainEntry[] => {
    const chain: ChainEntry[] = [];
    const seen = new Set<string>();
    for (let e = from; e && !seen.has(e.uuid); e = e.parentUuid ? byUuid.get(e.parentUuid) : undefined) {
      seen.add(e.uuid);
      chain.push(e);
    }
    return chain.reverse();
  };
  let leaf: ChainEntry | undefined;
  for (let i = entries.length - 1; i >= 0; i--)
    if (!parents.has(entries[i]!.uuid) && entries[i]!.entry.type !== 'progress') {
      leaf = entries[i];
      break;
    }
  const main = walk(leaf);
  if (at === undefined) {
    if (dropsTurn !== undefined) throw new ResumeError('--resume-drops-turn needs --resume-session-at');
    return main;
  }
  const target = byUuid.get(at);
  if (!target) throw new ResumeError(`--resume-session-at: no message with uuid ${at} in this session`);
  const branch = walk(target);
  if (dropsTurn !== undefined) {
    const idx = main.findIndex((e) => e.uuid === at);
    const dropped = idx < 0 ? [] : main.slice(idx + 1);
    const problem = droppedTurnProblem(dropped, dropsTurn);
    if (problem) throw new ResumeError(`Resume rejected by --resume-drops-turn: ${problem}`, { asResult: true });
  }
  return branch;
}

function isPrompt(e: Record<string, unknown>): boolean {
  if (e.type !== 'user' || e.isMeta === true) return false;
  const content = (e.message as { content?: unknown } | undefined)?.content;
  return !(
    Array.isArray(content) &&
    content.length > 0 &&
    content.every((b) => (b as { type?: string })?.type === 'tool_result')
  );
}

/** Why the entries past the resume point are not all the declared turn's, or undefined. */
function droppedTurnProblem(dropped: ChainEntry[], prompt: string): string | undefined {
  let inTurn = false;
  for (const e of dropped) {
    if (e.uuid === prompt) {
      inTurn = true;
      continue;
    }
    if (isPrompt(e.entry))
      return `the discarded range holds another prompt (${e.uuid}) besides the turn ${prompt}; resume without truncating instead`;
    if (!inTurn && e.entry.type !== 'system')
      return `the discarded range holds ${e.entry.type} entry ${e.uuid} before the turn's prompt ${prompt}`;
  }
  if (dropped.length > 0 && !inTurn) return `the prompt ${prompt} is not in the discarded range`;
  return undefined;
}

type Block = { type: string; [k: string]: unknown };

function toolUseIds(content: Block[]): string[] {
  return content.filter((b) => b?.type === 'tool_use' && typeof b.id === 'string').map((b) => b.id as string);
}

/** Turns transcript entries, in order, into API messages that alternate and pair every tool_use. */
export class HistoryBuilder {
  private readonly history: HistoryMessage[] = [];
  /** tool_use ids of the last assistant turn still waiting for their tool_result. */
  private open: string[] = [];
  /** The API message id of the last assistant entry (a reply's blocks are entries of their own). */
  private lastReplyId: string | undefined;
  /** A prompt is held until the next line: a `prompt_blocked` line after it means it never ran. */
  private heldPrompt: string | Block[] | undefined;

  constructor(private readonly warn: Warn = () => {}) {}

  /** False when the entry is not a well-formed message (the caller warns). */
  add(e: Record<string, unknown>): boolean {
    if (e.type === 'system' && e.subtype === 'prompt_blocked') {
      this.heldPrompt = undefined;
      return true;
    }
    if (e.parent_tool_use_id !== undefined && e.parent_tool_use_id !== null) return true; // a subagent's
    if (e.type === 'attachment') {
      this.addAttachment(e);
      return true;
    }
    if (e.type !== 'user' && e.type !== 'assistant') return true; // system, result, …
    const message = e.message as { role?: unknown; content?: unknown; model?: unknown } | undefined;
    if (!message || typeof message !== 'object') return false;
    const content = message.content;
    if (e.type === 'assistant') {
      if (!Array.isArray(content)) return false;
      if (message.model === '<synthetic>') return true; // an API error shown to the host, never sent
      this.flushPrompt();
      this.addAssistant(
        content as Block[],
        typeof (message as { id?: unknown }).id === 'string' ? (message as { id: string }).id : undefined,
      );
      return true;
    }
    if (typeof content !== 'string' && !Array.isArray(content)) return false;
    const blocks = typeof content === 'string' ? [] : (content as Block[]);
    if (typeof content !== 'string' && blocks.length > 0 && blocks.every((b) => b?.type === 'tool_result')) {
      this.flushPrompt();
      this.addResults(blocks);
      return true;
    }
    // A prompt (what beforePrompt recorded).
    this.flushPrompt();
    this.heldPrompt = content as string | Block[];
    return true;
  }

  finish(): HistoryMessage[] {
    this.flushPrompt();
    this.closeOpen();
    return this.history;
  }

  private flushPrompt(): void {
    if (this.heldPrompt === undefined) return;
    const prompt = this.heldPrompt;
    this.heldPrompt = undefined;
    this.closeOpen();
    appendUser(this.history, prompt, []);
  }

  /**
   * The deferred-tools reminder goes back on the user message it was added to, as the model read
   * it: the conversation is sent as before (its cached prefix holds), and the loop, finding the
   * list there, does not tell it again. Other attachments (the reference's) are not ours to replay.
   */
  private addAttachment(e: Record<string, unknown>): void {
    const kind = (e.attachment as { type?: unknown } | undefined)?.type;
    const rendered = (e.rendered as Array<{ content?: unknown }> | undefined)?.[0]?.content;
    if (kind !== DEFERRED_TOOLS_ATTACHMENT || typeof rendered !== 'string') return;
    const block = { type: 'text', text: rendered };
    if (this.heldPrompt !== undefined) {
      const held = this.heldPrompt;
      this.heldPrompt = typeof held === 'string' ? [{ type: 'text', text: held }, block] : [...held, block];
    } else if (this.history.at(-1)?.role === 'user') appendUser(this.history, [block], []);
  }

  private addAssistant(content: Block[], messageId: string | undefined): void {
    const prev = this.history[this.history.length - 1];
    // The next block of the same reply (one transcript entry per block): it joins that reply, and
    // its calls wait for their results with the earlier blocks' calls.
    if (messageId !== undefined && messageId === this.lastReplyId && prev?.role === 'assistant') {
      prev.content = [...prev.content, ...content];
      this.open.push(...toolUseIds(content));
      return;
    }
    this.lastReplyId = messageId;
    this.closeOpen();
    if (this.history.length === 0) {
      // The API wants a user turn first: an answer whose prompt was lost cannot be sent.
      this.warn('an assistant turn with no prompt before it was left out');
      return;
    }
    const last = this.history[this.history.length - 1]!;
    // Two assistant turns in a row (e.g. a background notice, not recorded as a prompt): one turn.
    if (last.role === 'assistant') last.content = [...last.content, ...content];
    else this.history.push({ role: 'assistant', content: [...content] });
    this.open = toolUseIds(content);
  }

  private addResults(blocks: Block[]): void {
    const kept = blocks.filter((b) => {
      const id = b.tool_use_id as string;
      if (!this.open.includes(id)) return false; // no tool_use right before it: the API would refuse it
      this.open = this.open.filter((x) => x !== id);
      return true;
    });
    if (kept.length < blocks.length) this.warn('a tool_result without its tool_use was left out');
    if (kept.length) appendUser(this.history, kept, []);
  }

  /** tool_use calls that never got a result (the run was cut off) get an is_error result. */
  private closeOpen(): void {
    if (this.open.length === 0) return;
    const results: HistoryContent = this.open.map((id) => ({
      type: 'tool_result',
      tool_use_id: id,
      content: INTERRUPTED_TOOL_RESULT,
      is_error: true,
    }));
    this.open = [];
    appendUser(this.history, results, []);
  }
}
