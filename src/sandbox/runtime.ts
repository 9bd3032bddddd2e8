// The sandbox of one session: @anthropic-ai/sandbox-runtime (bubblewrap + seccomp + a filtering
// proxy on Linux, sandbox-exec on macOS) set up once at start, checked for real with a probe
// command, and asked to wrap each Bash command. The library loads only when the sandbox is on.
import { spawn } from 'node:child_process';
import { mkdirSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { requireBundleBeside } from '../util/cachedBundle.js';
import { childEnv } from '../util/processGroup.js';
import type { CommandSandbox } from '../../tools/sandbox.js';
import { createLiveLimits, type LiveLimits, type SessionLimits } from './liveLimits.js';
import { isExcludedCommand, rulesToSandbox, type MergedSandboxSettings } from './policy.js';
import { quote, readLinuxWrap, reshapeLinuxWrap, type ReshapeOptions } from './linuxWrap.js';
import { PreparedWraps } from './preparedWrap.js';
import { onPath, SessionNetwork } from './sessionNetwork.js';
import { unsupportedSandboxKeys } from '../settings/sandbox.js';

type SrtModule = typeof import('@anthropic-ai/sandbox-runtime');
type SrtConfig = import('@anthropic-ai/sandbox-runtime').SandboxRuntimeConfig;
type SrtManager = SrtModule['SandboxManager'];

/** The session's sandbox: what tools see (tools/sandbox.ts), and what the session tells it. */
export interface SessionSandbox extends CommandSandbox {
  /** The rules or directories changed mid-session: the limits follow them (see liveLimits.ts). */
  follow(now: SessionLimits): void;
}

export class SandboxStartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxStartupError';
  }
}

export interface SandboxSetupOptions {
  settings: MergedSandboxSettings;
  /** Permission rules (all sources and flags): Read/Edit/WebFetch rules become sandbox limits. */
  rules: { allow: string[]; deny: string[] };
  cwd: string;
  /** Where the rules' relative paths are anchored, when not at `cwd` (the start cwd, once in a worktree): both count. */
  ruleCwd?: string;
  /** --add-dir and permissions.additionalDirectories: writable like cwd. */
  workingDirs: string[];
  /** The session's scratch directory: writable; its `tmp/` is the commands' TMPDIR. */
  scratchDir: string;
  platform?: NodeJS.Platform;
  warn: (message: string) => void;
}

function installHint(platform: NodeJS.Platform): string {
  if (platform === 'darwin')
    return 'On macOS the sandbox uses sandbox-exec (part of the system) and ripgrep: brew install ripgrep.';
  return 'Install them: apt-get install bubblewrap socat ripgrep (Debian/Ubuntu), dnf install bubblewrap socat ripgrep (Fedora), pacman -S bubblewrap socat ripgrep (Arch).';
}

function loadRuntime(): SrtModule {
  // A plain require (Node ≥ 20.19 loads the package's ESM this way): the bundle runs in a
  // vm.Script, where a dynamic import() has no loader.
  const from = typeof __filename === 'string' ? __filename : import.meta.url;
  // dist/sandbox.cjs, beside the CLI's bundle (src/sandbox/runtimeBundle.ts): the same package as
  // one file, cheaper to load, through its code cache. Run from the sources, the package itself.
  return requireBundleBeside<SrtModule>(
    'sandbox.cjs',
    () => createRequire(from)('@anthropic-ai/sandbox-runtime') as SrtModule,
  );
}

/** The runtime config: filesystem and network limits from the sandbox settings and the rules. */
export function buildRuntimeConfig(o: SandboxSetupOptions): SrtConfig {
  const s = o.settings;
  const fromRules = rulesToSandbox(o.rules, o.cwd);
  if (o.ruleCwd !== undefined && o.ruleCwd !== o.cwd) {
    const atStart = rulesToSandbox(o.rules, o.ruleCwd);
    for (const k of Object.keys(fromRules) as Array<keyof typeof fromRules>) fromRules[k].push(...atStart[k]);
  }
  const network = s.network;
  const config: SrtConfig = {
    network: {
      allowedDomains: [...new Set([...network.allowedDomains, ...fromRules.allowedDomains])],
      deniedDomains: [...new Set([...network.deniedDomains, ...fromRules.deniedDomains])],
      ...(network.allowUnixSockets.length ? { allowUnixSockets: network.allowUnixSockets } : {}),
      ...(network.allowAllUnixSockets !== undefined ? { allowAllUnixSockets: network.allowAllUnixSockets } : {}),
      ...(network.allowLocalBinding !== undefined ? { allowLocalBinding: network.allowLocalBinding } : {}),
      ...(network.allowMachLookup ? { allowMachLookup: network.allowMachLookup } : {}),
      ...(network.httpProxyPort !== undefined ? { httpProxyPort: network.httpProxyPort } : {}),
      ...(network.socksProxyPort !== undefined ? { socksProxyPort: network.socksProxyPort } : {}),
    },
    filesystem: {
      denyRead: [...new Set([...s.filesystem.denyRead, ...fromRules.denyRead])],
      allowRead: s.filesystem.allowRead,
      allowWrite: [
        ...new Set([o.cwd, ...o.workingDirs, o.scratchDir, ...s.filesystem.allowWrite, ...fromRules.allowWrite]),
      ],
      denyWrite: [...new Set([...s.filesystem.denyWrite, ...fromRules.denyWrite])],
    },
    // ignoreViolations is applied by us (ignoredViolation): the runtime only sees the runner script.
    ...(s.enableWeakerNestedSandbox !== undefined ? { enableWeakerNestedSandbox: s.enableWeakerNestedSandbox } : {}),
    ...(s.enableWeakerNetworkIsolation !== undefined
      ? { enableWeakerNetworkIsolation: s.enableWeakerNetworkIsolation }
      : {}),
    ...(s.allowAppleEvents !== undefined ? { allowAppleEvents: s.allowAppleEvents } : {}),
    ...(s.ripgrep
      ? { ripgrep: { command: s.ripgrep.command, ...(s.ripgrep.args ? { args: s.ripgrep.args } : {}) } }
      : {}),
    ...(s.bwrapPath ? { bwrapPath: s.bwrapPath } : {}),
    ...(s.socatPath ? { socatPath: s.socatPath } : {}),
  } as SrtConfig;
  return config;
}

/** What the start-up probe prints when its command reached it and ran. */
const PROBE_MARKER = 'agent-sandbox-probe-ran';

/** The probe's last output lines, to say why it failed. */
function lastLines(result: { code: number | null; output: string }, max: number): string {
  return result.output.trim().split('\n').slice(-3).join(' ').slice(0, max) || `exit code ${result.code}`;
}

/** Runs `command` through bash once, outside our process-group bookkeeping: the start-up probe. */
function probe(
  shellText: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('/bin/bash', ['-c', shellText], {
      cwd,
      env: { ...childEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const add = (c: Buffer) => {
      if (output.length < 4000) output += c.toString('utf8');
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: 127, output: err.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * Sets the sandbox up, or says why it cannot. Returns undefined when `sandbox.enabled` is not
 * true. Throws SandboxStartupError (exit 1) when it is enabled but cannot run and
 * `failIfUnavailable` is not false, and for settings it cannot enforce; with
 * `failIfUnavailable: false` it warns and returns an inactive sandbox.
 */
export async function setupSandbox(o: SandboxSetupOptions): Promise<SessionSandbox | undefined> {
  const s = o.settings;
  if (s.enabled !== true) return undefined;
  const unsupported = unsupportedSandboxKeys(s);
  if (unsupported.length) {
    throw new SandboxStartupError(
      `sandbox settings this runtime cannot enforce: ${unsupported.join(', ')}. Remove them (or turn the sandbox off); they are not silently ignored.`,
    );
  }
  const platform = o.platform ?? process.platform;
  const unavailable = (what: string): SessionSandbox => {
    const reason = `Sandbox required but unavailable: ${what.replace(/\.+$/, '')}`;
    if (s.failIfUnavailable !== false) {
      throw new SandboxStartupError(
        `${reason}. To run Bash commands unsandboxed instead, set "sandbox": {"failIfUnavailable": false}.`,
      );
    }
    o.warn(`${reason}. sandbox.failIfUnavailable is false: Bash commands run UNSANDBOXED.`);
    return inactiveSandbox(s, `${reason}; Bash commands run UNSANDBOXED (sandbox.failIfUnavailable is false)`);
  };
  if (platform !== 'linux' && platform !== 'darwin')
    return unavailable(`no sandbox is available on ${platform} (Linux needs bubblewrap, macOS sandbox-exec)`);

  let srt: SrtModule;
  try {
    srt = loadRuntime();
  } catch (err) {
    return unavailable(`@anthropic-ai/sandbox-runtime could not be loaded (${(err as Error).message})`);
  }
  const config = buildRuntimeConfig(o);
  const checked = srt.SandboxRuntimeConfigSchema.safeParse(config);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new SandboxStartupError(`sandbox settings: ${issue.path.join('.')}: ${issue.message}`);
  }
  const manager = srt.SandboxManager;
  if (!manager.isSupportedPlatform()) return unavailable(`this platform is not supported by the sandbox runtime`);
  const deps = manager.checkDependencies(config.ripgrep);
  if (deps.errors.length) return unavailable(`${deps.errors.join(', ')}. ${installHint(platform)}`);
  for (const w of deps.warnings) o.warn(`sandbox: ${w}`);

  // The commands' TMPDIR: the session's own, inside a writable directory (the runtime's default
  // /tmp/claude may not exist and is shared by every user).
  const tmp = path.join(o.scratchDir, 'tmp');
  mkdirSync(tmp, { recursive: true, mode: 0o700 });
  process.env.CLAUDE_CODE_TMPDIR = tmp;
  // Gone with the session (its commands are ended at exit too), and the scratch folder with it
  // when nothing else is in it: every sandboxed session left one in the temp dir.
  process.once('exit', () => removeScratchTmp(o.scratchDir, tmp));
  try {
    await manager.initialize(config, undefined, true);
    process.once('exit', removeProxySockets);
  } catch (err) {
    await manager.reset().catch(() => {});
    return unavailable(`${(err as Error).message}. ${installHint(platform)}`);
  }
  for (const w of manager.getLinuxGlobPatternWarnings()) o.warn(`sandbox: ${w}`);

  // Dependencies present is not enough (user namespaces may be off, /proc not mountable): run one.
  let wrapped: string;
  try {
    wrapped = await manager.wrapWithSandbox(runnerScript(platform), undefined, undefined, undefined, {
      commandId: 'agent-sandbox-probe',
    });
  } catch (err) {
    await manager.reset().catch(() => {});
    return unavailable(`a probe command could not be wrapped (${(err as Error).message})`);
  }
  const live = createLiveLimits({
    initial: config,
    build: (now) => buildRuntimeConfig({ ...o, ...now, ruleCwd: o.cwd }),
    check: (c) => srt.SandboxRuntimeConfigSchema.safeParse(c),
    update: (c) => manager.updateConfig(c),
    warnings: () => manager.getLinuxGlobPatternWarnings(),
    warn: o.warn,
  });
  // On Linux, the probe is run the way commands will be, through the session's network
  // namespace; if that cannot be, as the runtime made it (below), and commands run that way.
  const shared = platform === 'linux' ? await startSessionNetwork(manager, config, o, wrapped) : undefined;
  if (shared) {
    manager.cleanupAfterCommand();
    return activeSandbox(s, manager, platform, live, shared);
  }
  // The runner script, as every command will run: it must find the command and run it.
  const result = await probe(wrapped, o.cwd, { [COMMAND_ENV]: `echo ${PROBE_MARKER}` });
  manager.cleanupAfterCommand();
  if (result.code !== 0) {
    await manager.reset().catch(() => {});
    const why = lastLines(result, 500);
    return unavailable(
      `bubblewrap could not start a sandbox here (${why}). Unprivileged user namespaces must be allowed (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0)`,
    );
  }
  if (!result.output.includes(PROBE_MARKER)) {
    await manager.reset().catch(() => {});
    return unavailable(
      `the probe command ran in the sandbox but its command text did not reach it (output: ${result.output.trim().slice(0, 300) || 'none'})`,
    );
  }
  return activeSandbox(s, manager, platform, live);
}

/** The session's shared network namespace (src/sandbox/sessionNetwork.ts) and how a wrap joins it. */
interface SharedNetwork {
  network: SessionNetwork;
  /** The runtime's wrap of the runner, reshaped to join the namespace (as words); undefined when it cannot be. */
  join(text: string): string[] | undefined;
}

/**
 * Starts the shared network namespace and runs the start-up probe (`probeWrap`, the runtime's wrap
 * of the runner) through it: it must run, and reach a bridge. Any failure is only slower: the
 * caller then probes the runtime's wrap as it is, and commands start their own bridges (said on
 * stderr). Leaves the probe's cleanup to the caller.
 */
async function startSessionNetwork(
  manager: SrtManager,
  config: SrtConfig,
  o: SandboxSetupOptions,
  probeWrap: string,
): Promise<SharedNetwork | undefined> {
  const slower = (why: string) => {
    o.warn(
      `sandbox: the session's shared network namespace is not used (${why}); each command starts its own proxy bridges, which costs ~5 ms more per command`,
    );
    return undefined;
  };
  const wrappedRunner = runnerScript('linux');
  const parts = readLinuxWrap(probeWrap, wrappedRunner);
  if (!parts) return slower('the sandbox runtime wrapped the probe in a shape this version does not know');
  const httpSocket = manager.getLinuxHttpSocketPath();
  const socksSocket = manager.getLinuxSocksSocketPath();
  if (!httpSocket || !socksSocket) return slower('the runtime has no proxy bridge sockets');
  const nsenter = onPath('nsenter');
  if (!nsenter) return slower('nsenter (util-linux) is not on PATH');
  let network: SessionNetwork;
  try {
    network = await SessionNetwork.start({
      bwrap: parts.bwrap,
      socat: config.socatPath ?? 'socat',
      shell: parts.shell,
      httpSocket,
      socksSocket,
      nsenter,
    });
  } catch (err) {
    return slower((err as Error).message);
  }
  const euid = process.geteuid?.() ?? 0;
  const base: Omit<ReshapeOptions, 'enter'> = {
    runner: runnerScript('linux', { bridgesShared: true }),
    ...(euid !== 0 ? { ids: { uid: euid, gid: process.getegid?.() ?? 0 } } : {}),
  };
  let toldOdd = false;
  const join = (text: string) => {
    const enter = network.enterWords();
    if (!enter) return undefined;
    const w = readLinuxWrap(text, wrappedRunner);
    if (w) return reshapeLinuxWrap(w, { ...base, enter });
    if (!toldOdd)
      o.warn(
        `sandbox: a command's wrap had a shape this version does not rearrange; such commands start their own proxy bridges (slower, as safe)`,
      );
    toldOdd = true;
    return undefined;
  };
  // The probe as every command will run: it must run, and reach a bridge from inside.
  const argv = join(probeWrap);
  if (!argv) return slower('its holder ended as it started');
  const result = await probe(quote(argv), o.cwd, {
    [COMMAND_ENV]: `echo ${PROBE_MARKER}; : </dev/tcp/127.0.0.1/3128 && echo bridged`,
  });
  if (result.code !== 0 || !result.output.includes(PROBE_MARKER) || !result.output.includes('bridged')) {
    network.close();
    return slower(`a probe command run through it failed: ${lastLines(result, 300)}`);
  }
  network.onEnd((why) =>
    o.warn(
      `sandbox: the session's shared network namespace ended (${why}); from now on each command starts its own proxy bridges`,
    ),
  );
  return { network, join };
}

/** The commands' TMPDIR, then the scratch folder if it is empty now. */
function removeScratchTmp(scratchDir: string, tmp: string): void {
  try {
    rmSync(tmp, { recursive: true, force: true });
    rmdirSync(scratchDir);
  } catch {
    // Task outputs or checkpoints are still in it (kept, as without the sandbox), or it is gone.
  }
}

/**
 * The runtime's proxy listens on `$TMPDIR/srt-mux-<pid>-<n>.sock` (n counts its starts from 0, in
 * base 36) and leaves it behind when the process exits without its async reset: every session did,
 * thousands piled up in /tmp. Removed at exit, synchronously, by name (a scan of a crowded /tmp
 * took 100+ ms); only this process's own.
 */
function removeProxySockets(): void {
  for (let n = 0; n < 8; n++) {
    try {
      unlinkSync(path.join(tmpdir(), `srt-mux-${process.pid}-${n.toString(36)}.sock`));
    } catch {
      // Not made, or gone already.
    }
  }
}

function policyOf(s: MergedSandboxSettings) {
  const allowUnsandboxed = s.allowUnsandboxedCommands !== false;
  return {
    autoAllowBashIfSandboxed: s.autoAllowBashIfSandboxed === true,
    allowUnsandboxedCommands: allowUnsandboxed,
    /** Runs outside: an excluded command, or dangerouslyDisableSandbox where that is allowed. */
    outside: (command: string, disableRequested?: boolean) =>
      (disableRequested === true && allowUnsandboxed) || isExcludedCommand(s.excludedCommands, command),
  };
}

function inactiveSandbox(s: MergedSandboxSettings, reason: string): SessionSandbox {
  const p = policyOf(s);
  return {
    status: { enabled: true, active: false, reason },
    autoAllowBashIfSandboxed: false,
    allowUnsandboxedCommands: p.allowUnsandboxedCommands,
    sandboxes: () => false,
    wrap: async (command) => ({ command, env: {}, finish: async () => [] }),
    prepare: () => {},
    // Commands run unsandboxed (the warning said so): there are no limits to follow.
    follow: () => {},
  };
}

/**
 * On Linux the library starts its in-sandbox proxy bridges (socat on :3128 and :1080) in the
 * background and runs the command at once; on a loaded machine the command's first connection
 * can beat the bridge's bind ("Failed to connect to localhost port 3128"). Wait, only when the
 * proxy is in use and at most ~2 s, until both listeners show in the sandbox's own /proc/net/tcp.
 * Builtins only for the first checks (they usually pass at once): no process is started unless
 * the bridges are late.
 */
const AWAIT_PROXY_BRIDGE = [
  'case "${HTTP_PROXY:-}" in *localhost:3128*) __agent_n=0;',
  "while IFS= read -r -d '' __agent_t </proc/net/tcp; [[ $__agent_t != *':0C38 00000000:0000 0A'* || $__agent_t != *':0438 00000000:0000 0A'* ]]; do",
  '(( ++__agent_n > 400 )) && break; (( __agent_n > 20 )) && sleep 0.005; done; unset __agent_n __agent_t;; esac',
].join(' ');

/** How long after a command ends the next wrap is begun (the result is sent to the model first). */
const PREPARE_AFTER_MS = 20;

/** The variable that carries a sandboxed command into the runner script. */
export const COMMAND_ENV = 'AGENT_SANDBOXED_COMMAND';
/** Linux's limit on one environment string (MAX_ARG_STRLEN), less the `NAME=`. */
const MAX_COMMAND_BYTES = 128 * 1024 - COMMAND_ENV.length - 2;

/**
 * What the sandbox wraps: the same for every command, which it reads from COMMAND_ENV (unset
 * before it runs, so the command does not see its own text), so a wrap can be made in advance.
 */
export function runnerScript(platform: NodeJS.Platform, o: { bridgesShared?: boolean } = {}): string {
  const run = `eval "unset ${COMMAND_ENV}; $${COMMAND_ENV}"`;
  // One line, so the command's own line numbers are the ones its error messages give. Bridges
  // shared by the session (src/sandbox/sessionNetwork.ts) listen before any command starts.
  return platform === 'linux' && !o.bridgesShared ? `${AWAIT_PROXY_BRIDGE}; ${run}` : run;
}

/** Would `ignoreViolations` leave this violation out? The runtime's own rule, applied by us because
 * it only knows the runner script, not the command: `*` patterns for every command, other keys as
 * substrings of the command. */
export function ignoredViolation(line: string, command: string, ignore: Record<string, string[]>): boolean {
  for (const [pattern, paths] of Object.entries(ignore)) {
    if ((pattern === '*' || command.includes(pattern)) && paths.some((p) => line.includes(p))) return true;
  }
  return false;
}

function activeSandbox(
  s: MergedSandboxSettings,
  manager: SrtManager,
  platform: NodeJS.Platform,
  live: LiveLimits,
  shared?: SharedNetwork,
): SessionSandbox {
  const p = policyOf(s);
  const runner = runnerScript(platform);
  const wraps = new PreparedWraps(
    {
      wrap: (id, signal) => manager.wrapWithSandbox(runner, undefined, undefined, signal, { commandId: id }),
      release: () => manager.cleanupAfterCommand(),
    },
    `agent-${process.pid}-`,
  );
  wraps.prepare();
  return {
    status: { enabled: true, active: true },
    autoAllowBashIfSandboxed: p.autoAllowBashIfSandboxed,
    allowUnsandboxedCommands: p.allowUnsandboxedCommands,
    sandboxes: (command, disableRequested) => !p.outside(command, disableRequested),
    prepare: () => wraps.prepare(),
    follow(now) {
      // A wrap made ahead carries the old filesystem limits: never run a command with it.
      if (live.apply(now)) void wraps.discard();
    },
    async wrap(command, opts) {
      const bytes = Buffer.byteLength(command);
      if (bytes > MAX_COMMAND_BYTES) {
        throw new Error(
          `the command is ${bytes} bytes long, over the ${MAX_COMMAND_BYTES} bytes one environment variable can carry into the sandbox; write it to a script file and run that`,
        );
      }
      const wrap = await wraps.take(opts.signal);
      // Into the session's network namespace while it is up; else the runtime's wrap as it is.
      const argv = shared?.join(wrap.text);
      let finished = false;
      return {
        command: argv ? quote(argv) : wrap.text,
        ...(argv ? { argv } : {}),
        env: { [COMMAND_ENV]: command },
        async finish() {
          if (finished) return [];
          finished = true;
          manager.cleanupAfterCommand();
          // Violation events arrive over a socket; let the ones already sent land first.
          await new Promise((r) => setImmediate(r));
          const lines = manager
            .getSandboxViolationStore()
            .getViolationsForCommand(wrap.id)
            .map((v) => v.line)
            .filter((line) => !ignoredViolation(line, command, s.ignoreViolations) && !live.falselyReported(line));
          // The next command's wrap, made while the model reads this one's result: a moment from
          // now, once that result is on its way (making a wrap blocks this thread for a few ms,
          // in the runtime's `which`), or when the model starts streaming a Bash call.
          setTimeout(() => wraps.prepare(), PREPARE_AFTER_MS).unref();
          return lines;
        },
      };
    },
  };
}
