// An agent's transcript: a side chain of the session at <session>/subagents/agent-<id>.jsonl, with
// the agent's messages and tool results (deltas and progress are not kept).
import { dirname } from 'node:path';
import type { LoopEvent } from '../loop/events.js';
import { subagentTranscriptPath, Transcript, type TranscriptIdentity } from '../transcript/transcript.js';
import { makeDirs } from '../util/makeDirs.js';
import type { MirrorSink } from '../transcript/mirror.js';

/** `<session>/subagents/agent-<id>.jsonl`, its folder made. */
export function agentTranscriptPath(sessionFolder: string, agentId: string): string {
  const path = subagentTranscriptPath(sessionFolder, agentId);
  makeDirs(dirname(path));
  return path;
}

/** The agent's transcript, its lines naming the agent (and a teammate's its team). */
export function openAgentTranscript(
  path: string,
  identity: Omit<TranscriptIdentity, 'agentId'>,
  agentId: string,
  teamName?: string,
  mirror?: MirrorSink,
): Transcript {
  return new Transcript(path, { ...identity, agentId, ...(teamName ? { teamName } : {}) }, mirror);
}

/** A subagent's loop event as its transcript line (deltas and progress are not kept). */
export function recordEvent(transcript: Transcript, ev: LoopEvent): void {
  if (ev.type === 'assistant')
    transcript.appendMessage({
      type: 'assistant',
      message: ev.message,
      ...(ev.message.model === '<synthetic>' ? { isApiErrorMessage: true } : {}),
    });
  else if (ev.type === 'tool_result')
    transcript.appendMessage({
      type: 'user',
      message: { role: 'user', content: [ev.block] },
      ...(ev.data !== undefined ? { toolUseResult: ev.data } : {}),
    });
}
