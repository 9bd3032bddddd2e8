// Where the runtime keeps its files: the user's config folder and the session's scratch folder.
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** `$CLAUDE_CONFIG_DIR`, else `~/.claude`: user settings, memory, agents, skills, transcripts, teams. */
export function configDir(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
}

/** The session's scratch folder under the system temp dir (tool outputs, file checkpoints without a session folder). */
export function sessionTmpDir(sessionId: string): string {
  return join(tmpdir(), `agent-runtime-${sessionId}`);
}
