// The session's file and context controls: file checkpoints (on with
// CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING, which the SDK sets for enableFileCheckpointing), and
// the target of the rewind_files / get_context_usage / read_file / seed_read_state control
// requests (their handlers: src/control/sessionHandlers.ts, bound in src/control/sessionControl.ts).
import { join } from 'node:path';
import type { Tool } from '../../tools/tool.js';
import type { SessionControlTarget } from '../control/sessionHandlers.js';
import { decidePermission } from '../permissions/decision.js';
import { callFacts } from '../../tools/toolCall.js';
import type { PermissionState } from '../permissions/state.js';
import type { MemoryFile } from '../settings/memory.js';
import { contextUsage } from './contextUsage.js';
import { FileCheckpoints, type CheckpointRecord } from './fileCheckpoints.js';
import { FILE_HISTORY_LINE } from './resume.js';
import type { Transcript } from '../transcript/transcript.js';
import { readFileForHost, seedReadState } from './hostFileAccess.js';
import type { SessionRunner } from './runner.js';
import type { SystemBlocks } from '../prompt/systemPrompt.js';
import { isMainThread, type SessionEvent } from './events.js';
import { sessionTmpDir } from '../util/configDir.js';

export interface SessionControlsOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** File checkpoints, when on (fileCheckpointsFor). */
  checkpoints: FileCheckpoints | undefined;
  tools: () => Tool[];
  permissions: () => PermissionState;
  runner: () => SessionRunner;
  systemPrompt: () => SystemBlocks;
  memoryText: () => string;
  memoryFiles: MemoryFile[];
  agents: () => Array<{ name: string; description: string; source: string }>;
}

export interface SessionControls {
  /** A user message (its transcript uuid) starts a turn: file changes are checkpointed against it. */
  onPrompt(messageId: string): void;
  /** Events to tell before this one (files_persisted before a result), and what to remember of it. */
  before(event: SessionEvent): SessionEvent[];
  /** What the context holds now (get_context_usage, /context). */
  contextUsage(detail: 'summary' | 'full'): ReturnType<typeof contextUsage>;
  /** What the file and context control requests act on. */
  requests: SessionControlTarget;
}

function truthy(v: string | undefined): boolean {
  return v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
}

/** File checkpoints, when CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING is on (a resumed session's records restored). */
export function fileCheckpointsFor(o: {
  env: NodeJS.ProcessEnv;
  sessionId: string;
  /** The session's folder beside its transcript; undefined without persistence. */
  sessionFolder?: string;
  /** Where checkpoint records are kept (absent without persistence). */
  transcript?: Transcript | null;
  /** Checkpoint records of earlier runs of a resumed session. */
  restored?: CheckpointRecord[];
}): FileCheckpoints | undefined {
  if (!truthy(o.env.CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING)) return undefined;
  const checkpoints = new FileCheckpoints(join(o.sessionFolder ?? sessionTmpDir(o.sessionId), 'file-history'), (r) =>
    o.transcript?.appendMeta({ type: FILE_HISTORY_LINE, ...r, timestamp: new Date().toISOString() }),
  );
  checkpoints.restore(o.restored ?? []);
  return checkpoints;
}

export function setupSessionControls(o: SessionControlsOptions): SessionControls {
  const { checkpoints } = o;
  let apiUsage: Parameters<typeof contextUsage>[0]['apiUsage'] = null;

  const hostFiles = () => ({
    cwd: o.cwd,
    readFiles: o.runner().readFiles,
    decideRead: (absPath: string) => {
      const read = o.tools().find((t) => t.name === 'Read');
      return decidePermission(o.permissions(), { call: callFacts(read, 'Read', { file_path: absPath }) });
    },
  });

  const usageNow = (detail: 'summary' | 'full') => {
    const runner = o.runner();
    return contextUsage(
      {
        model: runner.settings.model,
        system: o.systemPrompt(),
        memoryText: o.memoryText(),
        memoryFiles: o.memoryFiles,
        ...runner.offeredToolSchemas(),
        history: runner.history,
        agents: o.agents().map((a) => ({ agentType: a.name, source: a.source, description: a.description })),
        apiUsage,
        env: o.env,
      },
      detail,
    );
  };

  const requests: SessionControlTarget = {
    async rewindFiles(userMessageId, dryRun) {
      if (!checkpoints)
        throw new Error(
          'rewind_files: file checkpointing is off in this session; start it with enableFileCheckpointing (CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true)',
        );
      return checkpoints.rewind(userMessageId, dryRun);
    },
    contextUsage: (detail) => usageNow(detail),
    readFile: (req) => readFileForHost(hostFiles(), req),
    async seedReadState(path, mtime) {
      await seedReadState(hostFiles(), path, mtime);
    },
  };

  return {
    contextUsage: usageNow,
    requests,
    onPrompt(messageId) {
      checkpoints?.beginTurn(messageId);
    },
    before(ev) {
      if (!isMainThread(ev)) return [];
      if (ev.type === 'assistant') {
        const u = ev.message.usage;
        if (u)
          apiUsage = {
            input_tokens: u.input_tokens ?? 0,
            output_tokens: u.output_tokens ?? 0,
            cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
            cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
          };
      }
      if (ev.type !== 'result' || !checkpoints) return [];
      const kept = checkpoints.takeTurnBackups();
      if (!kept.files.length && !kept.failed.length) return [];
      // The turn's checkpoint copies: file_id is the copy's content hash in the session's folder.
      return [
        {
          type: 'notice',
          notice: { subtype: 'files_persisted', backups: kept, processedAt: new Date().toISOString() },
        },
      ];
    },
  };
}
