// The `apiKeyHelper` setting: a shell command whose stdout is the API key. It is run when a key is
// first needed, again once the key is older than CLAUDE_CODE_API_KEY_HELPER_TTL_MS (default five
// minutes), and again after the API answers 401. The key lives in this object only: it is never
// put in the environment (so no child sees it), logged, or written to a transcript.
import { execFile } from 'node:child_process';

const DEFAULT_TTL_MS = 5 * 60_000;
/** A helper that has not answered by then is stuck (a prompt nobody can see, a dead network). */
const HELPER_TIMEOUT_MS = 60_000;

export type RunHelper = (command: string, label?: string) => Promise<string>;

/** Runs `command` with sh, its stdout trimmed; rejects naming the setting (`label`) and the failure. */
export const runHelperCommand: RunHelper = (command, label = 'apiKeyHelper') =>
  new Promise((resolve, reject) => {
    execFile(
      '/bin/sh',
      ['-c', command],
      { timeout: HELPER_TIMEOUT_MS, maxBuffer: 1024 * 1024, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        if (err) {
          const why = (err as NodeJS.ErrnoException & { killed?: boolean }).killed
            ? `did not finish within ${HELPER_TIMEOUT_MS / 1000} s`
            : `exited with ${err.code ?? 'an error'}`;
          const tail = String(stderr).trim().split('\n').slice(-3).join(' / ').slice(0, 300);
          reject(new Error(`${label} (${command}) ${why}${tail ? `: ${tail}` : ''}`));
          return;
        }
        resolve(String(stdout).trim());
      },
    );
  });

export function helperTtlMs(env: NodeJS.ProcessEnv): number {
  const n = Number(env.CLAUDE_CODE_API_KEY_HELPER_TTL_MS);
  return env.CLAUDE_CODE_API_KEY_HELPER_TTL_MS?.trim() && Number.isFinite(n) && n >= 0 ? n : DEFAULT_TTL_MS;
}

export class ApiKeyHelper {
  private key: string | null = null;
  private fetchedAt = 0;
  private pending: Promise<string> | null = null;

  constructor(
    readonly command: string,
    readonly ttlMs: number,
    private readonly run: RunHelper = runHelperCommand,
    private readonly now: () => number = Date.now,
  ) {}

  /** The current key, running the helper when there is none or it has outlived its TTL. */
  get(): Promise<string> {
    if (this.key !== null && this.now() - this.fetchedAt < this.ttlMs) return Promise.resolve(this.key);
    // Parallel requests (subagents) share one run of the helper.
    this.pending ??= this.run(this.command)
      .then((key) => {
        if (!key) throw new Error(`apiKeyHelper (${this.command}) printed nothing; it must print the API key`);
        this.key = key;
        this.fetchedAt = this.now();
        return key;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  /** After a 401: the next request runs the helper again. */
  invalidate(): void {
    this.key = null;
  }
}
