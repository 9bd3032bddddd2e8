// A real editor host: Zed's ACP adapter (@zed-industries/claude-code-acp) runs bin/agent as its
// Claude Code (CLAUDE_CODE_EXECUTABLE) against the fake API, and this test plays the editor over
// ACP (JSON-RPC lines on stdio): initialize, session/new, session/prompt. The model calls the
// adapter's own in-process MCP tool (mcp__acp__Read), which the adapter serves by asking the editor
// (fs/read_text_file); the `/` menu (available_commands_update) is not empty.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { AGENT_BIN, resultsById, startFakeApi, tempDir, type FakeApi } from './harness.js';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const require = createRequire(import.meta.url);
const ADAPTER = join(dirname(require.resolve('@zed-industries/claude-code-acp/package.json')), 'dist', 'index.js');

/** The editor's side of ACP: requests out, the adapter's requests answered by `serve`, notifications kept. */
function editor(env: NodeJS.ProcessEnv, serve: (method: string, params: any) => unknown) {
  const child = spawn(process.execPath, [ADAPTER], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  const updates: any[] = [];
  const served: Array<{ method: string; params: any }> = [];
  let stderr = '';
  let buf = '';
  child.stderr.on('data', (c) => (stderr += c));
  child.stdout.on('data', (c) => {
    buf += c;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const m = JSON.parse(line);
      if (m.method && m.id !== undefined) {
        served.push({ method: m.method, params: m.params });
        const result = serve(m.method, m.params);
        child.stdin.write(JSON.stringify(result === undefined ? { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `not served: ${m.method}` } } : { jsonrpc: '2.0', id: m.id, result }) + '\n');
      } else if (m.method === 'session/update') updates.push(m.params.update);
      else if (m.id !== undefined && pending.has(m.id)) {
        const p = pending.get(m.id)!;
        pending.delete(m.id);
        if (m.error) p.reject(new Error(`${m.error.message} ${JSON.stringify(m.error.data ?? '')}`));
        else p.resolve(m.result);
      }
    }
  });
  let id = 0;
  return {
    updates,
    served,
    stderr: () => stderr,
    call(method: string, params: unknown, timeoutMs = 20_000): Promise<any> {
      const n = ++id;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${method}: no answer in ${timeoutMs} ms; adapter stderr: ${stderr.slice(-500)}`)), timeoutMs);
        pending.set(n, {
          resolve: (v) => (clearTimeout(timer), resolve(v)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: n, method, params }) + '\n');
      });
    },
    close: () => child.kill('SIGTERM'),
  };
}

describe('Zed ACP adapter as the host', () => {
  it('a prompt whose model calls the adapter\'s MCP Read: the adapter asks the editor (fs/read_text_file) and the content reaches the model; the / menu is filled', async () => {
    const cwd = tempDir();
    const file = join(cwd, 'notes.txt');
    api = await startFakeApi([toolUse('mcp__acp__Read', { file_path: file }, 'r1'), text('the notes say hello')]);
    const ed = editor(
      { ...process.env, CLAUDE_CODE_EXECUTABLE: AGENT_BIN, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key', CLAUDE_CONFIG_DIR: tempDir('agent-acp-config-'), AGENT_MAX_RETRIES: '1' },
      (method, params) => {
        // The editor holds the file (an unsaved buffer, say): what it answers is what the model sees.
        if (method === 'fs/read_text_file') return { content: `editor buffer of ${params.path}: hello` };
        if (method === 'session/request_permission') return { outcome: { outcome: 'selected', optionId: params.options[0].optionId } };
        return undefined;
      },
    );
    try {
      const init = await ed.call('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false } });
      expect(init.protocolVersion).toBe(1);
      const session = await ed.call('session/new', { cwd, mcpServers: [] });
      expect(session.sessionId).toEqual(expect.any(String));
      const done = await ed.call('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'read my notes' }] });
      expect(done.stopReason).toBe('end_turn');
      expect(ed.served.filter((s) => s.method === 'fs/read_text_file').map((s) => s.params.path)).toEqual([file]);
      const seen = resultsById(api.requests[1]).r1;
      expect(seen.isError).toBe(false);
      expect(seen.text).toContain(`editor buffer of ${file}: hello`);
      const said = ed.updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text).join('');
      expect(said).toBe('the notes say hello');
      const menu = ed.updates.find((u) => u.sessionUpdate === 'available_commands_update');
      expect(menu?.availableCommands.length).toBeGreaterThan(0);
      expect(menu.availableCommands.map((c: { name: string }) => c.name)).toContain('compact');
      // No bogus failure line for the adapter's in-process server.
      expect(ed.stderr()).not.toMatch(/server type "sdk" is not supported/);
    } finally {
      ed.close();
    }
  });
});
