// Session transcripts in the reference CLI's format, so the official SDK's session helpers
// (listSessions, getSessionMessages, forkSession, listSubagents, …) read them:
//   $CLAUDE_CONFIG_DIR/projects/<cwd slug>/<session id>.jsonl                    the session
//   $CLAUDE_CONFIG_DIR/projects/<cwd slug>/<session id>/subagents/agent-<id>.jsonl  a subagent/teammate
// Every message line carries uuid, parentUuid (the chain resume and fork follow), sessionId,
// timestamp, cwd and type; metadata lines (custom-title, tag) carry no chain. Appended
// synchronously, one write per line, so an exit loses nothing and a crash tears at most one line.
import { makeDirs } from '../util/makeDirs.js';
import type { MirrorSink } from './mirror.js';
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { randomUUID } from '../util/ids.js';
import { dirname, join } from 'node:path';
import { configDir } from '../util/configDir.js';
import { logWarning } from '../util/log.js';

export { configDir } from '../util/configDir.js';

/** The project folder's name: every non-alphanumeric character of the cwd becomes `-`. */
export function projectSlug(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

export function transcriptPath(env: NodeJS.ProcessEnv, cwd: string, sessionId: string): string {
  return join(configDir(env), 'projects', projectSlug(cwd), `${sessionId}.jsonl`);
}

/** The session's own folder (subagent transcripts, file checkpoints) beside its transcript. */
export function sessionDir(env: NodeJS.ProcessEnv, cwd: string, sessionId: string): string {
  return join(configDir(env), 'projects', projectSlug(cwd), sessionId);
}

export function subagentTranscriptPath(sessionFolder: string, agentId: string): string {
  return join(sessionFolder, 'subagents', `agent-${agentId}.jsonl`);
}

export interface TranscriptIdentity {
  sessionId: string;
  cwd: string;
  version: string;
  /** Subagents and teammates: their lines are a side chain of the session, never its main line. */
  agentId?: string;
  /** A teammate's team (issue: teammates), written on each of its lines. */
  teamName?: string;
}

/** What a message line is made of before the chain fields are added. */
export interface TranscriptMessage {
  type: 'user' | 'assistant' | 'system' | 'attachment';
  /** The protocol line's uuid when there is one, so a host's ids (resumeSessionAt) find it. */
  uuid?: string;
  [field: string]: unknown;
}

export class Transcript {
  /** Opened on the first entry and kept open: one write per entry, no open/close each time. */
  private fd: number | undefined;
  private failed = false;
  /** The chain's head: the parent of the next message line. */
  private head: string | null = null;
  /** tool_use id → uuid of the assistant line that asked for it (sourceToolAssistantUUID). */
  private readonly toolUseOwner = new Map<string, string>();

  constructor(
    readonly path: string,
    readonly identity: TranscriptIdentity,
    /** --session-mirror: each entry, once written here, goes to the host too (mirror.ts). */
    private readonly mirror?: MirrorSink,
  ) {}

  /** Where the next message line hangs (after a resume: the resumed branch's last message). */
  continueFrom(uuid: string | null): void {
    this.head = uuid;
  }

  get lastUuid(): string | null {
    return this.head;
  }

  /** Append one message line to the chain; returns its uuid. */
  appendMessage(m: TranscriptMessage): string {
    const uuid = m.uuid ?? randomUUID();
    const id = this.identity;
    const entry: Record<string, unknown> = {
      parentUuid: this.head,
      isSidechain: id.agentId !== undefined,
      userType: 'external',
      cwd: id.cwd,
      sessionId: id.sessionId,
      version: id.version,
      ...(id.agentId !== undefined ? { agentId: id.agentId } : {}),
      ...(id.teamName !== undefined ? { teamName: id.teamName } : {}),
      ...m,
      uuid,
      timestamp: new Date().toISOString(),
    };
    const message = m.message as { content?: unknown } | undefined;
    if (m.type === 'assistant' && Array.isArray(message?.content))
      for (const b of message.content as Array<{ type?: string; id?: unknown }>)
        if (b?.type === 'tool_use' && typeof b.id === 'string') this.toolUseOwner.set(b.id, uuid);
    if (m.type === 'user' && Array.isArray(message?.content)) {
      const first = (message.content as Array<{ type?: string; tool_use_id?: unknown }>).find(
        (b) => b?.type === 'tool_result',
      );
      const owner = typeof first?.tool_use_id === 'string' ? this.toolUseOwner.get(first.tool_use_id) : undefined;
      if (owner) entry.sourceToolAssistantUUID = owner;
    }
    this.write(entry);
    this.head = uuid;
    return uuid;
  }

  /** A line outside the chain (custom-title, tag): read by the SDK's listSessions/getSessionInfo. */
  appendMeta(entry: Record<string, unknown>): void {
    this.write({ ...entry, sessionId: this.identity.sessionId });
  }

  /** One entry as is (a fork copies its source's lines). */
  appendRaw(entry: object): void {
    this.write(entry);
  }

  /**
   * A protocol line the host saw, as a transcript line: prompts, assistant messages, tool
   * results and system events go on the chain; results, init, progress and deltas do not.
   */
  recordProtocolLine(line: Record<string, unknown>): void {
    const uuid = typeof line.uuid === 'string' ? line.uuid : undefined;
    switch (line.type) {
      case 'assistant': {
        const message = line.message as { model?: string } | undefined;
        this.appendMessage({
          type: 'assistant',
          uuid,
          message,
          ...(line.error !== undefined ? { error: line.error } : {}),
          ...(message?.model === '<synthetic>' ? { isApiErrorMessage: true } : {}),
        });
        return;
      }
      case 'user':
        this.appendMessage({
          type: 'user',
          uuid,
          message: line.message,
          ...(line.tool_use_result !== undefined ? { toolUseResult: line.tool_use_result } : {}),
        });
        return;
      case 'system': {
        if (line.subtype === 'init') return;
        const { type: _t, session_id: _s, uuid: _u, subtype, ...fields } = line;
        if (subtype === 'compact_boundary') {
          const meta = (fields.compact_metadata ?? {}) as { trigger?: string; pre_tokens?: number };
          this.appendMessage({
            type: 'system',
            uuid,
            subtype,
            content: 'Conversation compacted',
            level: 'info',
            logicalParentUuid: this.head,
            compactMetadata: { trigger: meta.trigger, preTokens: meta.pre_tokens },
          });
          return;
        }
        this.appendMessage({ type: 'system', uuid, subtype, level: 'info', ...fields });
        return;
      }
      default:
        return; // result, stream_event, tool_progress, control lines: not part of the conversation
    }
  }

  private write(entry: object): void {
    if (this.failed) return;
    let line: string;
    try {
      line = `${JSON.stringify(entry)}\n`;
    } catch (err) {
      // One entry that cannot be serialised costs that entry, not the rest of the transcript.
      logWarning(`a transcript entry was left out: ${(err as Error).message}`);
      return;
    }
    try {
      if (this.fd === undefined) {
        makeDirs(dirname(this.path));
        this.fd = openSync(this.path, 'a+', 0o600);
        // A torn last line (a crash mid-write) must not swallow the first line written now.
        const size = fstatSync(this.fd).size;
        if (size > 0) {
          const last = Buffer.alloc(1);
          readSync(this.fd, last, 0, 1, size - 1);
          if (last[0] !== 0x0a) writeSync(this.fd, '\n');
        }
      }
      writeSync(this.fd, line);
      this.mirror?.(this.path, [entry]);
    } catch (err) {
      // A read-only home must not stop the run; say so once.
      this.failed = true;
      logWarning(`cannot write the transcript ${this.path}: ${(err as Error).message}`);
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
