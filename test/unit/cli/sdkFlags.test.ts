// Every flag the installed official SDK can put on our command line is either built or refused at
// start with exit 2 and a message naming it — never accepted and ignored. The SDK's list is read
// from its own sdk.mjs (the code that builds argv); ours comes from the real option parser.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flagCatalog, parseOptions, UsageError } from '../../../src/cli/options.js';
import { runAgent } from '../../e2e/harness.js';

function sdkFlags(): string[] {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('@anthropic-ai/claude-agent-sdk'));
  const src = readFileSync(join(dir, 'sdk.mjs'), 'utf8');
  // The argv builder: from the fixed stream-json flags to the spawn of the process.
  const start = src.indexOf('["--output-format","stream-json","--verbose","--input-format","stream-json"]');
  const end = src.indexOf('Spawning Claude Code', start);
  expect(start).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  const flags = new Set<string>();
  for (const m of src.slice(start, end).matchAll(/"(--[a-z][a-z-]*)(?:=[^"]*)?"/g)) flags.add(m[1]);
  // Extra args and `settings`/`sandbox` reach argv as `--<key>`: settings is the one the SDK sets itself.
  flags.add('--settings');
  return [...flags].sort();
}

describe('the flags the official SDK can emit', () => {
  const flags = sdkFlags();
  const ours = new Map(flagCatalog().map((f) => [f.flag, f]));

  it('reads a plausible list from the SDK', () => {
    expect(flags.length).toBeGreaterThan(30);
    expect(flags).toContain('--permission-prompt-tool');
    expect(flags).toContain('--mcp-config');
  });

  it.each(flags)('%s is known to the parser: built, or refused with a message', (flag) => {
    const entry = ours.get(flag);
    expect(entry, `${flag} is unknown to the option parser`).toBeDefined();
    const argv = entry!.takesValue ? ['-p', 'q', `${flag}=x`] : ['-p', 'q', flag];
    let error: unknown;
    try {
      parseOptions(argv);
    } catch (err) {
      error = err;
    }
    if (entry!.built) {
      // A bad sample value may be refused, but never as "not supported".
      if (error) expect((error as Error).message).not.toMatch(/not supported/);
    } else {
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toBe(`${flag} is not supported yet`);
    }
  });

  it('the plugin flags the SDK sends (plugins option) are built and repeatable', () => {
    expect(flags).toEqual(expect.arrayContaining(['--plugin-dir', '--plugin-dir-no-mcp']));
    expect(ours.get('--plugin-dir')?.built).toBe(true);
    expect(ours.get('--plugin-dir-no-mcp')?.built).toBe(true);
    const out = parseOptions(['-p', 'q', '--plugin-dir', 'a', '--plugin-dir', 'b', '--plugin-dir-no-mcp', 'c']);
    expect(out.kind === 'run' && [out.options.pluginDir, out.options.pluginDirNoMcp]).toEqual([['a', 'b'], ['c']]);
  });

  it('a refused flag stops the real binary with exit 2 and its name on stderr', async () => {
    const refused = flags.filter((f) => ours.get(f) && !ours.get(f)!.built);
    if (refused.length === 0) return;
    const r = await runAgent({ args: ['-p', 'q', `${refused[0]}=x`] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`agent: ${refused[0]} is not supported yet`);
  });
});

describe('--session-mirror', () => {
  const refusal = (argv: string[]) => {
    try {
      parseOptions(argv);
    } catch (err) {
      return (err as Error).message;
    }
    return undefined;
  };

  it('is built for stream-json output, and refused where its lines could not reach a host or nothing is written', () => {
    expect(refusal(['-p', 'q', '--output-format', 'stream-json', '--verbose', '--session-mirror'])).toBeUndefined();
    expect(refusal(['-p', 'q', '--session-mirror'])).toMatch(/--session-mirror needs --output-format stream-json/);
    expect(
      refusal(['-p', 'q', '--output-format', 'stream-json', '--session-mirror', '--no-session-persistence']),
    ).toMatch(/cannot be used with --no-session-persistence/);
  });
});
