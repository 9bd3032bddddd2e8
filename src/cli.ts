// Entry point: parse flags, run, exit with the run's code (0 success, 1 error result, 2 bad usage).
import './util/zodConfig.js';
import { parseOptions, UsageError } from './cli/options.js';
import { debugLoggerFromFlags, logWarning, setDebugLogger } from './util/log.js';
import { applyTeammateEnv } from './teams/paneEnv.js';
import { watchLead } from './teams/leadWatch.js';
import { trustDeferredCa } from './net/deferredCa.js';
import { restoreHostEnv } from './util/hostEnv.js';

async function start(): Promise<number> {
  let parsed;
  // The host's variables that bin/agent changed for this process, back for children.
  const caDeferred = restoreHostEnv().has('NODE_EXTRA_CA_CERTS');
  const caAtStart = process.env.NODE_EXTRA_CA_CERTS;
  try {
    // A process teammate's lead left it its environment in a file (src/teams/paneEnv.ts).
    applyTeammateEnv();
    // A detached teammate ends when its lead is gone, even killed with SIGKILL.
    watchLead();
  } catch (err) {
    logWarning(`${(err as Error).message}`);
    return 2;
  }
  // NODE_EXTRA_CA_CERTS that Node did not read at its start is trusted from the first TLS
  // connection: kept from it by bin/agent, or named only by a teammate's environment file (a
  // detached teammate starts with that file alone, a tmux pane with the tmux server's environment).
  trustDeferredCa(caDeferred || process.env.NODE_EXTRA_CA_CERTS !== caAtStart);
  try {
    parsed = parseOptions(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      logWarning(`${err.message}`);
      return 2;
    }
    throw err;
  }
  if (parsed.kind === 'exit') return parsed.code;
  const o = parsed.options;
  const headless =
    o.print ||
    o.inputFormat === 'stream-json' ||
    o.outputFormat !== 'text' ||
    !process.stdin.isTTY ||
    o.prompt !== undefined ||
    o.agentName !== undefined; // a teammate process: its inbox is its input
  if (!headless && !process.stdout.isTTY) {
    logWarning('the interactive mode needs a terminal on stdout too; run `agent -p "your prompt"`');
    return 2;
  }
  try {
    setDebugLogger(debugLoggerFromFlags(o));
  } catch (err) {
    logWarning(`--debug-file: ${(err as Error).message}`);
    return 2;
  }
  const { main } = await import('./main.js');
  return main(o, { interactive: !headless });
}

function run(): void {
  start().then(
    (code) => process.exit(code),
    (err: unknown) => {
      logWarning(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exit(1);
    },
  );
}

/**
 * What the start-up snapshot holds besides the static modules: the session's modules, and the code
 * every start runs compiled, with zod's parsers for it made (startupWarmUp.ts).
 */
async function prepareSnapshot(): Promise<void> {
  await import('./main.js');
  // The Messages API client's module: every session that calls the model loads it at its first turn.
  await import('@anthropic-ai/sdk');
  (await import('./startupWarmUp.js')).warmUp();
}

// Built into a start-up snapshot (scripts/snapshot.cjs), the bundle is initialised at build time
// and runs when the snapshot is started: the builder takes `run` instead.
const snapshot = (globalThis as Record<symbol, unknown>)[Symbol.for('agent-runtime.snapshotMain')];
if (typeof snapshot === 'function')
  (snapshot as (main: () => void, prepare: () => Promise<void>) => void)(run, prepareSnapshot);
else run();
