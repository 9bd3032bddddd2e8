// The run's own temp dir: every test, and every process a test starts, inherits TMPDIR pointing at
// a fresh empty folder, so parallel runs do not see each other's files. At the end the folder must
// be empty again: anything left is a test (or the agent) that did not clean up, and fails the run.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleMcpFixtures } from './fixtures/mcpFixtures.js';

const CONTROLLER_HOME = 'controller-home';
/** The run's bundles of the MCP fixture servers (test/fixtures/mcpFixtures.ts). */
const MCP_FIXTURES = 'mcp-fixtures';
/** A folder put first on the run's PATH with python3 in it (see directPython). */
const PYTHON_BIN = 'python-bin';
let runDir = '';
/** The environment as the run found it: setup changes it for the run, teardown puts it back. */
let envBefore: NodeJS.ProcessEnv = {};

export function setup(): void {
  envBefore = { ...process.env };
  runDir = mkdtempSync(join(tmpdir(), 'agent-test-run-'));
  // Like /tmp: tests that run the agent as another user (nobody) need to make folders here too.
  chmodSync(runDir, 0o1777);
  process.env.TMPDIR = runDir;
  // claude-code-controller reads homedir() once, when a worker first loads it, and a worker
  // (isolate: false) keeps it for every file it runs: one home for the whole run (controllerLead.ts).
  const controllerHome = join(runDir, CONTROLLER_HOME);
  mkdirSync(controllerHome);
  process.env.AGENT_TEST_CONTROLLER_HOME = controllerHome;
  bundleMcpFixtures(join(runDir, MCP_FIXTURES));
  directPython(join(runDir, PYTHON_BIN));
  // The host's extra CA bundle (Debian images point NODE_EXTRA_CA_CERTS at the whole system bundle)
  // is not the tests' business: every Node process they start would parse it at its start, about
  // 40 ms of CPU each. The tests of it give their own (a test CA, test/cloud-fakes/tls.ts).
  delete process.env.NODE_EXTRA_CA_CERTS;
}

/**
 * python3 (claude-code-controller starts its agents through its pty module) as the interpreter
 * itself, found once, first on the run's PATH: a version manager's shim in its place (pyenv's is
 * a bash script that runs several more) cost about 0.6 s of CPU and over a second at each start.
 * AGENT_TEST_PYTHON_PTY=1 tells the tests that need it that it is there, with its pty module.
 */
function directPython(binDir: string): void {
  const found = spawnSync('python3', ['-c', 'import pty, sys; print(sys.executable)'], { encoding: 'utf8' });
  const exe = found.status === 0 ? found.stdout.trim() : '';
  if (!exe) return;
  mkdirSync(binDir);
  symlinkSync(exe, join(binDir, 'python3'));
  process.env.PATH = `${binDir}:${process.env.PATH ?? ''}`;
  process.env.AGENT_TEST_PYTHON_PTY = '1';
}

export function teardown(): void {
  for (const k of Object.keys(process.env)) if (!(k in envBefore)) delete process.env[k];
  Object.assign(process.env, envBefore);
  const left = readdirSync(runDir).filter((name) => ![CONTROLLER_HOME, MCP_FIXTURES, PYTHON_BIN].includes(name));
  rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
  if (left.length === 0) return;
  const byPrefix = new Map<string, number>();
  for (const name of left) {
    const prefix = name.replace(/[-.][^-.]*$/, '-*');
    byPrefix.set(prefix, (byPrefix.get(prefix) ?? 0) + 1);
  }
  const summary = [...byPrefix].map(([p, n]) => `${p} (${n})`).join(', ');
  throw new Error(
    `the test run left ${left.length} entries in its temp dir (removed now): ${summary}; first: ${left.slice(0, 20).join(', ')}`,
  );
}
