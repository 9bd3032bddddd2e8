// The file and context control requests through their SessionControlTarget: each request's fields
// reach the target parsed (defaults applied), its answer goes back as is, and a bad field is an
// error naming the subtype and the field, with the target left untouched.
import { describe, expect, it } from 'vitest';
import { ControlChannel } from '../../../src/control/channel.js';
import { registerSessionControlHandlers, type SessionControlTarget } from '../../../src/control/sessionHandlers.js';

function session() {
  const calls: string[] = [];
  const target: SessionControlTarget = {
    async rewindFiles(id, dryRun) {
      calls.push(`rewind ${id} ${dryRun}`);
      return { canRewind: true, filesChanged: ['/a'] };
    },
    contextUsage(detail) {
      calls.push(`usage ${detail}`);
      return { totalTokens: 7 };
    },
    async readFile(req) {
      calls.push(`read ${req.path} ${req.max_bytes ?? '-'}`);
      return { contents: 'x' };
    },
    async seedReadState(path, mtime) {
      calls.push(`seed ${path} ${mtime}`);
    },
  };
  const sent: Array<Record<string, any>> = [];
  const channel = new ControlChannel((m) => void sent.push(m));
  registerSessionControlHandlers(channel, target);
  const ask = async (req: Record<string, unknown> & { subtype: string }) => {
    await channel.handleRequest('r1', req);
    return sent.pop()!.response;
  };
  return { ask, calls };
}

describe('file and context control requests', () => {
  it('each reaches its target with its fields parsed, and answers with what the target returns', async () => {
    const s = session();
    expect((await s.ask({ subtype: 'rewind_files', user_message_id: 'u1' })).response).toEqual({
      canRewind: true,
      filesChanged: ['/a'],
    });
    await s.ask({ subtype: 'rewind_files', user_message_id: 'u2', dry_run: true });
    expect((await s.ask({ subtype: 'get_context_usage' })).response).toEqual({ totalTokens: 7 });
    await s.ask({ subtype: 'get_context_usage', detail: 'full' });
    expect((await s.ask({ subtype: 'read_file', path: '/f', max_bytes: 10 })).response).toEqual({ contents: 'x' });
    // seed_read_state answers an empty body.
    expect((await s.ask({ subtype: 'seed_read_state', path: '/f', mtime: 5 })).response).toEqual({});
    expect(s.calls).toEqual([
      'rewind u1 false',
      'rewind u2 true',
      'usage summary',
      'usage full',
      'read /f 10',
      'seed /f 5',
    ]);
  });

  it('a bad field is an error naming the subtype and the field; the target is not reached', async () => {
    const s = session();
    const errors = [
      await s.ask({ subtype: 'rewind_files' }),
      await s.ask({ subtype: 'get_context_usage', detail: 'all' }),
      await s.ask({ subtype: 'read_file', path: '' }),
      await s.ask({ subtype: 'seed_read_state', path: '/f', mtime: 'soon' }),
    ];
    expect(errors.map((e) => e.subtype)).toEqual(['error', 'error', 'error', 'error']);
    expect(errors[0].error).toContain('rewind_files: user_message_id must be the uuid of a user message');
    expect(errors[1].error).toMatch(/^get_context_usage: /);
    expect(errors[2].error).toContain('read_file: path is empty');
    expect(errors[3].error).toContain('seed_read_state: mtime must be a number (ms)');
    expect(s.calls).toEqual([]);
  });
});
