// Mailboxes: locked, atomic read-modify-write, so two writers never lose a message (two processes
// here, as with a team directory shared between sessions); malformed inboxes are set aside.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lockFile } from '../../../src/teams/fileLock.js';
import { Mailbox } from '../../../src/teams/mailbox.js';
import { inboxTurn, teammateMessage } from '../../../src/teams/messages.js';
import { normalizeSendMessage } from '../../../tools/sendMessage.js';
import { tempDir } from '../../e2e/harness.js';

const COMPILED = fileURLToPath(new URL('../../../dist/src/teams/mailbox.js', import.meta.url));
const COMPILED_LOCK = fileURLToPath(new URL('../../../dist/src/teams/fileLock.js', import.meta.url));

function writer(teamDir: string, from: string, count: number): Promise<number | null> {
  const script = `
    const { Mailbox } = await import(${JSON.stringify(COMPILED)});
    const box = new Mailbox({ teamDir: ${JSON.stringify(teamDir)}, onProblem: (p) => { console.error(p); process.exit(3); } });
    for (let i = 0; i < ${count}; i++) await box.deliver('lead', { from: ${JSON.stringify(from)}, text: ${JSON.stringify(from)} + ' #' + i });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((r) => child.on('close', r));
}

describe('Mailbox', () => {
  it('two processes and this one writing to one inbox at once: every message lands, none twice', async () => {
    const teamDir = tempDir('mailbox-');
    const here = new Mailbox({ teamDir, onProblem: (p) => expect.fail(p) });
    const N = 40;
    const [a, b] = await Promise.all([
      writer(teamDir, 'a', N),
      writer(teamDir, 'b', N),
      (async () => {
        for (let i = 0; i < N; i++) await here.deliver('lead', { from: 'c', text: `c #${i}` });
        return 0;
      })(),
    ]);
    expect([a, b]).toEqual([0, 0]);
    const texts = here.all('lead').map((m) => m.text);
    expect(texts).toHaveLength(3 * N);
    for (const who of ['a', 'b', 'c']) for (let i = 0; i < N; i++) expect(texts).toContain(`${who} #${i}`);
    expect(readdirSync(join(teamDir, 'inboxes'))).toEqual(['lead.json']);
  });

  it('takeUnread hands each message out once and keeps it (read: true)', async () => {
    const box = new Mailbox({ teamDir: tempDir('mailbox-'), onProblem: (p) => expect.fail(p) });
    await box.deliver('w', { from: 'team-lead', text: 'one', summary: 's' });
    await box.deliver('w', { from: 'team-lead', text: 'two' });
    expect((await box.takeUnread('w')).map((m) => m.text)).toEqual(['one', 'two']);
    expect(await box.takeUnread('w')).toEqual([]);
    expect(box.all('w').map((m) => [m.text, m.read, m.summary])).toEqual([
      ['one', true, 's'],
      ['two', true, undefined],
    ]);
  });

  it('a malformed inbox is reported once, kept aside, and replaced; good entries of a partly bad one are kept', async () => {
    const teamDir = tempDir('mailbox-');
    const problems: string[] = [];
    const box = new Mailbox({ teamDir, onProblem: (p) => problems.push(p) });
    mkdirSync(join(teamDir, 'inboxes'), { recursive: true });
    writeFileSync(join(teamDir, 'inboxes', 'x.json'), '[{"from": "a", "te');
    expect(box.hasUnreadSafe('x')).toBe(true);
    expect(await box.takeUnread('x')).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/x\.json is malformed \(not JSON/);
    const aside = readdirSync(join(teamDir, 'inboxes')).find((f) => f.startsWith('x.json.corrupt-'))!;
    expect(readFileSync(join(teamDir, 'inboxes', aside), 'utf8')).toBe('[{"from": "a", "te');
    await box.deliver('x', { from: 'b', text: 'fresh' });
    expect((await box.takeUnread('x')).map((m) => m.text)).toEqual(['fresh']);
    expect(problems).toHaveLength(1);

    const good = { from: 'a', text: 'kept', timestamp: new Date().toISOString(), read: false };
    writeFileSync(join(teamDir, 'inboxes', 'y.json'), JSON.stringify([good, { nope: 1 }]));
    expect((await box.takeUnread('y')).map((m) => m.text)).toEqual(['kept']);
    expect(problems[1]).toMatch(/1 malformed message\(s\) skipped/);
  });

  it('a write that cannot happen throws (the sender learns it failed)', async () => {
    const teamDir = tempDir('mailbox-');
    mkdirSync(join(teamDir, 'inboxes', 'd.json'), { recursive: true });
    const box = new Mailbox({ teamDir, onProblem: () => {} });
    await expect(box.deliver('d', { from: 'a', text: 'x' })).rejects.toThrow(/EISDIR/);
    expect(existsSync(join(teamDir, 'inboxes', 'd.json.lock'))).toBe(false);
  });
});

describe('inbox lock', () => {
  const age = (path: string, seconds: number) => {
    const t = new Date(Date.now() - seconds * 1000);
    utimesSync(path, t, t);
  };

  it('a stale lock left as a directory (proper-lockfile, the reference) or as a file (older builds) is broken', async () => {
    const teamDir = tempDir('mailbox-');
    const box = new Mailbox({ teamDir, onProblem: (p) => expect.fail(p) });
    const lock = join(teamDir, 'inboxes', 'w.json.lock');
    mkdirSync(lock, { recursive: true });
    age(lock, 30);
    const started = Date.now();
    await box.deliver('w', { from: 'a', text: 'past a stale directory' });
    writeFileSync(lock, '');
    age(lock, 30);
    await box.deliver('w', { from: 'a', text: 'past a stale file' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(box.all('w').map((m) => m.text)).toEqual(['past a stale directory', 'past a stale file']);
    expect(existsSync(lock)).toBe(false);
  });

  it('a fresh lock is waited for, and released it is taken; a lock that stays gives up at the deadline', async () => {
    const dir = tempDir('lock-');
    const lock = join(dir, 'x.lock');
    const release = await lockFile(lock);
    expect(existsSync(lock)).toBe(true);
    const second = lockFile(lock, { waitMs: 2000 });
    setTimeout(release, 100);
    (await second)();
    expect(existsSync(lock)).toBe(false);

    mkdirSync(lock);
    const started = Date.now();
    await expect(lockFile(lock, { waitMs: 300 })).rejects.toThrow(
      /x\.lock\): held by another writer; gave up after 300 ms/,
    );
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('a stale lock that cannot be removed ends at the deadline with the reason (never a spin)', async () => {
    const dir = tempDir('lock-');
    const lock = join(dir, 'x.lock');
    mkdirSync(join(lock, 'not-empty'), { recursive: true });
    age(lock, 30);
    const started = Date.now();
    await expect(lockFile(lock, { waitMs: 300 })).rejects.toThrow(
      /a stale lock \(\d+ s old\) could not be removed: ENOTEMPTY/,
    );
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('a symbolic link left at the lock path is a lock: broken when stale, waited for when fresh (never a spin)', () => {
    const dir = tempDir('lock-');
    const lock = join(dir, 'x.lock');
    // Dangling: mkdir finds the path taken, stat (which follows links) finds nothing there. A spin
    // never yields, so the lock is taken in a child process that is killed if it does not answer.
    const take = () => {
      const script = `
        const { lockFile } = await import(${JSON.stringify(COMPILED_LOCK)});
        const started = Date.now();
        try { (await lockFile(${JSON.stringify(lock)}, { waitMs: 300 }))(); console.log('taken'); }
        catch (err) { console.log(err.message); }
        console.log(Date.now() - started);
      `;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 5000 });
      expect(r.signal, 'the lock spun').toBeNull();
      const [said, ms] = r.stdout.trim().split('\n');
      return { said, ms: Number(ms) };
    };
    symlinkSync(join(dir, 'no-such-target'), lock);
    const fresh = take();
    expect(fresh.said).toMatch(/x\.lock\): held by another writer; gave up after 300 ms/);
    expect(fresh.ms).toBeLessThan(1500);
    const t = new Date(Date.now() - 30_000);
    lutimesSync(lock, t, t);
    expect(take().said).toBe('taken');
    expect(existsSync(lock)).toBe(false);
  });

  it("keeps the reference's fields it does not use, and reads messages without `read` as unread", async () => {
    const teamDir = tempDir('mailbox-');
    mkdirSync(join(teamDir, 'inboxes'), { recursive: true });
    const file = join(teamDir, 'inboxes', 'w.json');
    writeFileSync(
      file,
      JSON.stringify([{ from: 'controller', text: 'hi', timestamp: 't', type: 'message', msg_id: 'm1' }]),
    );
    const box = new Mailbox({ teamDir, onProblem: (p) => expect.fail(p) });
    expect((await box.takeUnread('w')).map((m) => m.text)).toEqual(['hi']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([
      { from: 'controller', text: 'hi', timestamp: 't', type: 'message', msg_id: 'm1', read: true },
    ]);
  });

  it("writes the reference's envelope: msgV 1, a fresh msg_id, type message, unread", async () => {
    const teamDir = tempDir('mailbox-');
    const box = new Mailbox({ teamDir, onProblem: (p) => expect.fail(p) });
    await box.deliver('w', { from: 'a', text: 'one', summary: 's', color: 'blue' });
    await box.deliver('w', { from: 'a', text: 'two' });
    const [one, two] = JSON.parse(readFileSync(join(teamDir, 'inboxes', 'w.json'), 'utf8'));
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    expect(one).toEqual({
      from: 'a',
      text: 'one',
      summary: 's',
      color: 'blue',
      timestamp: expect.any(String),
      msgV: 1,
      msg_id: expect.stringMatching(uuid),
      type: 'message',
      read: false,
    });
    expect(two.msg_id).toMatch(uuid);
    expect(two.msg_id).not.toBe(one.msg_id);
  });
});

describe('team message text', () => {
  it('wraps messages as <teammate-message> blocks, attributes escaped', () => {
    expect(teammateMessage('team-lead', 'do it', 'a "quoted" task')).toBe(
      '<teammate-message teammate_id="team-lead" summary="a &quot;quoted&quot; task">\ndo it\n</teammate-message>',
    );
    const turn = inboxTurn([
      { from: 'a', text: 'one', timestamp: '', read: false },
      { from: 'b', text: 'two', summary: 'sum', timestamp: '', read: false },
    ]);
    expect(turn).toBe(
      '<teammate-message teammate_id="a">\none\n</teammate-message>\n\n<teammate-message teammate_id="b" summary="sum">\ntwo\n</teammate-message>',
    );
  });
});

describe('SendMessage spellings', () => {
  it("today's {to, message} and the agent-teams {type, recipient, content} mean the same", () => {
    expect(normalizeSendMessage({ to: 'w', message: 'hi', summary: 's' })).toEqual({
      kind: 'message',
      to: 'w',
      text: 'hi',
      summary: 's',
    });
    expect(normalizeSendMessage({ type: 'message', recipient: 'w', content: 'hi', summary: 's' })).toEqual({
      kind: 'message',
      to: 'w',
      text: 'hi',
      summary: 's',
    });
    expect(normalizeSendMessage({ to: '*', message: 'all' })).toEqual({
      kind: 'broadcast',
      text: 'all',
      summary: undefined,
    });
    expect(normalizeSendMessage({ type: 'broadcast', content: 'all' })).toMatchObject({
      kind: 'broadcast',
      text: 'all',
    });
    expect(normalizeSendMessage({ to: 'w', message: { type: 'shutdown_request', reason: 'done' } })).toEqual({
      kind: 'shutdown_request',
      to: 'w',
      reason: 'done',
    });
    expect(normalizeSendMessage({ type: 'shutdown_request', recipient: 'w', content: 'done' })).toEqual({
      kind: 'shutdown_request',
      to: 'w',
      reason: 'done',
    });
    expect(normalizeSendMessage({ type: 'shutdown_response', request_id: 'r1', approve: true })).toEqual({
      kind: 'shutdown_response',
      requestId: 'r1',
      approve: true,
      reason: undefined,
    });
    expect(
      normalizeSendMessage({
        message: { type: 'shutdown_response', request_id: 'r1', approve: false, reason: 'busy' },
      }),
    ).toEqual({ kind: 'shutdown_response', requestId: 'r1', approve: false, reason: 'busy' });
  });

  it('names what is missing', () => {
    expect(() => normalizeSendMessage({ message: 'hi' })).toThrow('SendMessage message needs `to`');
    expect(() => normalizeSendMessage({ type: 'shutdown_response', approve: true })).toThrow('needs `request_id`');
    expect(() => normalizeSendMessage({ to: 'w' })).toThrow('needs `message`');
  });
});
