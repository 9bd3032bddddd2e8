// Reading and reshaping the sandbox runtime's Linux wrap (src/sandbox/linuxWrap.ts): only the exact
// shape known is rearranged; anything else is left to run as the runtime made it.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { quote, readLinuxWrap, reshapeLinuxWrap, shellWords } from '../../../src/sandbox/linuxWrap.js';

const RUNNER = 'eval "unset X; $X"';
const SECCOMP = '/opt/srt/vendor/seccomp/x64/apply-seccomp';
const inner = (last: string) =>
  quote([
    '/usr/bin/bash',
    '-c',
    [
      'socat TCP-LISTEN:3128,fork,reuseaddr UNIX-CONNECT:/tmp/claude-http-1.sock >/dev/null 2>&1 &',
      'socat TCP-LISTEN:1080,fork,reuseaddr UNIX-CONNECT:/tmp/claude-http-1.sock >/dev/null 2>&1 &',
      `trap 'rc=$?; kill %1 %2 2>/dev/null; exit $rc' EXIT`,
      last,
    ].join('\n'),
  ]);
const withSeccomp = inner(`${SECCOMP} ${quote(['/usr/bin/bash', '-c', RUNNER])}`);
const options = [
  '--new-session',
  '--die-with-parent',
  '--setenv',
  'HTTP_PROXY',
  'http://u:p@localhost:3128',
  '--unshare-net',
  '--ro-bind',
  '/',
  '/',
  '--tmpfs',
  "/home/o'brien/secret dir",
  '--unshare-pid',
  '--unshare-user',
  '--proc',
  '/proc',
];
const wrap = (opts = options, cmd = withSeccomp) => quote(['bwrap', ...opts, '--', '/usr/bin/bash', '-c', cmd]);
const enter = [
  '/usr/bin/nsenter',
  '--user=/proc/7/ns/user',
  '--net=/proc/7/ns/net',
  '--preserve-credentials',
  '-S',
  '0',
  '-G',
  '0',
  '--',
];

describe('the runtime wrap, read and reshaped', () => {
  it('reads words in the runtime quoting exactly as bash does (checked against bash), and nothing else', () => {
    const words = ['plain', '', "it's", 'two words', 'a=b', '=lead', '$HOME', '!x', 'line\nbreak'];
    const text = quote(words);
    expect(shellWords(text)).toEqual(words);
    const echoed = spawnSync('/bin/bash', ['-c', `printf '%s\\0' ${text}`], { encoding: 'utf8' })
      .stdout.split('\0')
      .slice(0, -1);
    expect(echoed).toEqual(words);
    // Anything a shell would expand, or another quoting, is not read.
    for (const bad of ['a $HOME', 'a "b"', 'a\\ b', 'a  b', 'a ', "a 'b", 'a;b', 'a*'])
      expect(shellWords(bad)).toBeUndefined();
  });

  it('joins the session namespace: nsenter in front, the same options less --unshare-net, apply-seccomp started directly, no bridges', () => {
    const w = readLinuxWrap(wrap(), RUNNER)!;
    expect(w).toEqual({
      launcher: [],
      bwrap: 'bwrap',
      options: options.filter((o) => o !== '--unshare-net'),
      shell: '/usr/bin/bash',
      start: [SECCOMP],
    });
    const out = reshapeLinuxWrap(w, { enter, runner: 'eval "$X"', ids: { uid: 1000, gid: 100 } });
    expect(out).toEqual([
      ...enter,
      'bwrap',
      '--uid',
      '1000',
      '--gid',
      '100',
      ...options.filter((o) => o !== '--unshare-net'),
      '--',
      SECCOMP,
      '/usr/bin/bash',
      '-c',
      'eval "$X"',
    ]);
    expect(out.join(' ')).not.toContain('socat');
  });

  it('keeps the args-file launcher in front of nsenter (the file is opened before bwrap reads it), and the eval form without seccomp', () => {
    const launcher = ['/bin/sh', '-c', 'exec 9<"$1" && shift && exec "$@"', 'srt-args', '/proc/1/fd/30'];
    const text = quote([
      ...launcher,
      'bwrap',
      '--unshare-net',
      '--args',
      '9',
      '--unshare-pid',
      '--',
      '/usr/bin/bash',
      '-c',
      inner(`eval ${quote([RUNNER])}`),
    ]);
    const w = readLinuxWrap(text, RUNNER)!;
    expect(w).toMatchObject({ launcher, options: ['--args', '9', '--unshare-pid'], start: [] });
    expect(reshapeLinuxWrap(w, { enter, runner: RUNNER })).toEqual([
      ...launcher,
      ...enter,
      'bwrap',
      '--args',
      '9',
      '--unshare-pid',
      '--',
      '/usr/bin/bash',
      '-c',
      RUNNER,
    ]);
  });

  it('anything not exactly the known shape is not reshaped', () => {
    expect(readLinuxWrap(wrap(options.filter((o) => o !== '--unshare-net')), RUNNER)).toBeUndefined(); // no network namespace to replace
    expect(readLinuxWrap(wrap([...options, '--frobnicate']), RUNNER)).toBeUndefined(); // an option of unknown arity
    expect(readLinuxWrap(wrap(options, withSeccomp.replace('eval', 'evil')), 'other runner')).toBeUndefined(); // not our runner
    expect(
      readLinuxWrap(wrap(options, inner(`ARGV0=x ${SECCOMP} ${quote(['/usr/bin/bash', '-c', RUNNER])}`)), RUNNER),
    ).toBeUndefined(); // multicall helper
    expect(
      readLinuxWrap(
        wrap(options, inner(`${SECCOMP} ${quote(['/usr/bin/bash', '-c', RUNNER])}`).replace('socat TCP', 'curl TCP')),
        RUNNER,
      ),
    ).toBeUndefined(); // an unknown line
    expect(readLinuxWrap(`${wrap()} && rm -rf /`, RUNNER)).toBeUndefined();
    expect(readLinuxWrap(quote(['sandbox-exec', '-p', 'x', 'bash']), RUNNER)).toBeUndefined();
  });
});
