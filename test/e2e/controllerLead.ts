// claude-code-controller (a dev dependency, real) as the lead of process teammates. It keeps its
// teams under homedir()/.claude, read once when the module is first loaded, and a worker
// (isolate: false) loads it once for every file it runs. So the home is the run's
// (AGENT_TEST_CONTROLLER_HOME, made by globalSetup), never a file's own: a file's own HOME would
// leave the next file's controller writing into the first file's removed home, and its teammates
// looking for their team elsewhere.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FakeApi } from './harness.js';
import { AGENT_BIN, tempDir } from './harness.js';

type ControllerModule = typeof import('claude-code-controller');
export type Controller = import('claude-code-controller').ClaudeCodeController;

let loaded: { Controller: ControllerModule['ClaudeCodeController']; claudeDir: string } | undefined;

/** The controller class and the `.claude` folder it keeps its teams in. */
export async function loadController(): Promise<NonNullable<typeof loaded>> {
  if (loaded) return loaded;
  const home = process.env.AGENT_TEST_CONTROLLER_HOME;
  if (!home) throw new Error('AGENT_TEST_CONTROLLER_HOME is not set (test/globalSetup.ts makes it)');
  const saved = process.env.HOME;
  process.env.HOME = home;
  let mod: ControllerModule;
  try {
    mod = await import('claude-code-controller');
  } finally {
    process.env.HOME = saved;
  }
  const claudeDir = dirname(mod.teamsDir());
  if (claudeDir !== join(home, '.claude'))
    throw new Error(`claude-code-controller was first loaded with another HOME: it keeps its teams in ${claudeDir}`);
  loaded = { Controller: mod.ClaudeCodeController, claudeDir };
  return loaded;
}

/**
 * A started controller leading team `prefix…` in a fresh folder, its teammates our bin/agent on
 * `api`. `stop()` shuts it down and removes its team.
 */
export async function startLead(
  api: FakeApi,
  opts: { prefix: string; cwd?: string; env?: Record<string, string> },
): Promise<{ c: Controller; cwd: string; claudeDir: string; stop: () => Promise<void> }> {
  const { Controller, claudeDir } = await loadController();
  const cwd = opts.cwd ?? tempDir('agent-teammate-cwd-');
  const c = new Controller({
    // Two workers may start a lead in the same millisecond: the name must not rely on the clock alone.
    teamName: `${opts.prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
    cwd,
    claudeBinary: AGENT_BIN,
    logLevel: 'silent',
    env: {
      HOME: dirname(claudeDir),
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'test-key',
      CLAUDE_CONFIG_DIR: claudeDir,
      AGENT_MAX_RETRIES: '2',
      ...opts.env,
    },
  });
  await c.init();
  const stop = async () => {
    // The controller stops its inbox poller only after it starts removing the team: a poll still
    // under way can re-create its lock directory mid-removal (ENOTEMPTY). Its race, not ours.
    await c.shutdown().catch(async (err: Error) => {
      if (!/ENOTEMPTY/.test(err.message)) throw err;
      await new Promise((r) => setTimeout(r, 600));
      rmSync(join(claudeDir, 'teams', c.teamName), { recursive: true, force: true });
      rmSync(join(claudeDir, 'tasks', c.teamName), { recursive: true, force: true });
    });
  };
  return { c, cwd, claudeDir, stop };
}
