// The next command's wrap, made while the session is idle: used only while nothing of ours ran or
// changed files since it was begun and it is young enough; otherwise a fresh wrap, and the stale
// one's per-command state is released (the runtime counts wraps until each is released).
import { describe, expect, it } from 'vitest';
import { PreparedWraps, MAX_AGE_MS, type WrapSource } from '../../../src/sandbox/preparedWrap.js';
import { ignoredViolation, runnerScript, COMMAND_ENV } from '../../../src/sandbox/runtime.js';
import { FileActivity } from '../../../src/util/fileActivity.js';

function setup(opts: { fail?: (id: string) => boolean } = {}) {
  const made: string[] = [];
  let released = 0;
  let gate: (() => void) | undefined;
  let hold = false;
  const source: WrapSource = {
    async wrap(id) {
      made.push(id);
      if (hold) await new Promise<void>((r) => (gate = r));
      if (opts.fail?.(id)) throw new Error(`cannot wrap ${id}`);
      return `wrapped:${id}`;
    },
    release: () => void released++,
  };
  const activity = new FileActivity();
  let clock = 1000;
  const wraps = new PreparedWraps(source, 'w', { activity, now: () => clock });
  return {
    wraps,
    activity,
    made,
    released: () => released,
    advance: (ms: number) => void (clock += ms),
    holdWraps: () => void (hold = true),
    releaseGate: () => gate?.(),
  };
}

describe('PreparedWraps', () => {
  it('a wrap prepared while idle serves the next command, once', async () => {
    const t = setup();
    t.wraps.prepare();
    t.wraps.prepare(); // one pending at a time
    expect(t.made).toEqual(['w1']);
    expect(await t.wraps.take()).toEqual({ id: 'w1', text: 'wrapped:w1', prepared: true });
    expect(await t.wraps.take()).toEqual({ id: 'w2', text: 'wrapped:w2', prepared: false });
    expect(t.released()).toBe(0);
  });

  it('anything of ours that may change files after it was begun makes it stale: a fresh wrap, the stale one released', async () => {
    const t = setup();
    t.wraps.prepare();
    t.activity.changed(); // a Write, an Edit, a rewind
    expect(await t.wraps.take()).toMatchObject({ id: 'w2', prepared: false });
    expect(t.released()).toBe(1);

    t.wraps.prepare();
    t.activity.started(); // a hook command, a background shell
    t.activity.ended();
    expect(await t.wraps.take()).toMatchObject({ id: 'w4', prepared: false });
    expect(t.released()).toBe(2);
  });

  it('a change while it is still being made counts too', async () => {
    const t = setup();
    t.holdWraps();
    t.wraps.prepare();
    const taking = t.wraps.take();
    t.activity.changed();
    t.releaseGate();
    await new Promise((r) => setImmediate(r));
    t.releaseGate(); // the fresh wrap
    expect(await taking).toMatchObject({ id: 'w2', prepared: false });
    expect(t.released()).toBe(1);
  });

  it('nothing is prepared while a command of ours runs (it may write at any moment)', async () => {
    const t = setup();
    t.activity.started();
    t.wraps.prepare();
    expect(t.made).toEqual([]);
    t.activity.ended();
    expect(await t.wraps.take()).toMatchObject({ id: 'w1', prepared: false });
  });

  it(`older than ${MAX_AGE_MS} ms it is not used (files others changed meanwhile would go unseen)`, async () => {
    const t = setup();
    t.wraps.prepare();
    t.advance(MAX_AGE_MS);
    expect(await t.wraps.take()).toMatchObject({ id: 'w1', prepared: true });
    t.wraps.prepare();
    t.advance(MAX_AGE_MS + 1);
    expect(await t.wraps.take()).toMatchObject({ id: 'w3', prepared: false });
    expect(t.released()).toBe(1);
  });

  it('a preparation that failed is not an error: the command is wrapped afresh, and a fresh failure is thrown', async () => {
    const t = setup({ fail: (id) => id === 'w1' || id === 'w4' });
    t.wraps.prepare();
    expect(await t.wraps.take()).toMatchObject({ id: 'w2', prepared: false });
    expect(t.released()).toBe(0); // the runtime released the failed one itself
    t.wraps.prepare();
    t.activity.changed();
    await expect(t.wraps.take()).rejects.toThrow('cannot wrap w4');
    expect(t.released()).toBe(1);
  });

  it('prepare() again (a Bash call starts streaming) keeps a valid pending wrap and replaces a stale one', async () => {
    const t = setup();
    t.wraps.prepare();
    t.wraps.prepare();
    expect(t.made).toEqual(['w1']);
    t.advance(MAX_AGE_MS + 1);
    t.wraps.prepare();
    expect(t.made).toEqual(['w1', 'w2']);
    await new Promise((r) => setImmediate(r));
    expect(t.released()).toBe(1);
    t.activity.changed();
    t.wraps.prepare();
    expect(await t.wraps.take()).toMatchObject({ id: 'w3', prepared: true });
    expect(t.released()).toBe(2);
  });

  it('discard releases a pending wrap', async () => {
    const t = setup();
    t.wraps.prepare();
    await t.wraps.discard();
    expect(t.released()).toBe(1);
    await t.wraps.discard();
    expect(t.released()).toBe(1);
  });
});

describe('the runner script and ignoreViolations', () => {
  it('the wrapped script is the same for every command, which it reads from the environment', () => {
    expect(runnerScript('darwin')).toBe(`eval "unset ${COMMAND_ENV}; $${COMMAND_ENV}"`);
    expect(runnerScript('linux').endsWith(`\neval "unset ${COMMAND_ENV}; $${COMMAND_ENV}"`)).toBe(true);
  });

  it('ignoreViolations: `*` paths for every command, other keys by a substring of the command', () => {
    const ignore = { '*': ['/usr/share'], 'npm install': ['/root/.npm'] };
    expect(ignoredViolation('deny openat /usr/share/x', 'ls', ignore)).toBe(true);
    expect(ignoredViolation('deny openat /root/.npm/_cacache', 'npm install left-pad', ignore)).toBe(true);
    expect(ignoredViolation('deny openat /root/.npm/_cacache', 'npm ci', ignore)).toBe(false);
    expect(ignoredViolation('deny openat /etc/passwd', 'npm install', ignore)).toBe(false);
  });
});
