// A real editor host: Zed's ACP adapter (@zed-industries/claude-code-acp) runs bin/agent as its
// Claude Code (CLAUDE_CODE_EXECUTABLE) against the fake API, and this test plays the editor over
// ACP (JSON-RPC lines on stdio): initialize, session/new, session/prompt. The model calls the
// adapter's own in-process MCP tool (mcp__acp__Read), which the adapter serves by asking the editor
// (fs/read_text_file), and its Bash, which runs in the editor's terminal (terminal/create …) and
// finds its ACP tool call by the `_meta["claudecode/toolUseId"]` we send; the `/` menu
// (available_commands_update) is not empty; and its Edit, whose result (a patch) we pass on as the
// server's content blocks, so the adapter can show the editor a diff.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { AGENT_BIN, resultsById, startFakeApi, tempDir, type FakeApi } from './harness.js';

let api: FakeApi | undefined;

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
        child.stdin.write(
          `${JSON.stringify(
            result === undefined
              ? { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `not served: ${m.method}` } }
              : { jsonrpc: '2.0', id: m.id, result },
          )}\n`,
        );
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
        const timer = setTimeout(
          () => reject(new Error(`${method}: no answer in ${timeoutMs} ms; adapter stderr: ${stderr.slice(-500)}`)),
          timeoutMs,
        );
        pending.set(n, {
          resolve: (v) => (clearTimeout(timer), resolve(v)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`);
      });
    },
    close: () => child.kill('SIGTERM'),
  };
}

describe('Zed ACP adapter as the host', () => {
  it("a prompt whose model calls the adapter's MCP Read: the adapter asks the editor (fs/read_text_file) and the content reaches the model; the / menu is filled", async () => {
    const cwd = tempDir();
    const file = join(cwd, 'notes.txt');
    api = await startFakeApi([toolUse('mcp__acp__Read', { file_path: file }, 'r1'), text('the notes say hello')]);
    const ed = editor(
      {
        ...process.env,
        CLAUDE_CODE_EXECUTABLE: AGENT_BIN,
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: 'test-key',
        CLAUDE_CONFIG_DIR: tempDir('agent-acp-config-'),
        AGENT_MAX_RETRIES: '1',
      },
      (method, params) => {
        // The editor holds the file (an unsaved buffer, say): what it answers is what the model sees.
        if (method === 'fs/read_text_file') return { content: `editor buffer of ${params.path}: hello` };
        if (method === 'session/request_permission')
          return { outcome: { outcome: 'selected', optionId: params.options[0].optionId } };
        return undefined;
      },
    );
    try {
      const init = await ed.call('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      });
      expect(init.protocolVersion).toBe(1);
      const session = await ed.call('session/new', { cwd, mcpServers: [] });
      expect(session.sessionId).toEqual(expect.any(String));
      const done = await ed.call('session/prompt', {
        sessionId: session.sessionId,
        prompt: [{ type: 'text', text: 'read my notes' }],
      });
      expect(done.stopReason).toBe('end_turn');
      expect(ed.served.filter((s) => s.method === 'fs/read_text_file').map((s) => s.params.path)).toEqual([file]);
      const seen = resultsById(api.requests[1]).r1;
      expect(seen.isError).toBe(false);
      expect(seen.text).toContain(`editor buffer of ${file}: hello`);
      const said = ed.updates
        .filter((u) => u.sessionUpdate === 'agent_message_chunk')
        .map((u) => u.content.text)
        .join('');
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
  it('the adapter\'s MCP Bash runs in the editor\'s terminal: the call is found by its tool_use id (no "No tool call ID found") and the output reaches the model', async () => {
    const cwd = tempDir();
    api = await startFakeApi([
      toolUse('mcp__acp__Bash', { command: 'npm test', timeout: 10_000, description: 'Run the tests' }, 'b1'),
      text('tests pass'),
    ]);
    const ed = editor(
      {
        ...process.env,
        CLAUDE_CODE_EXECUTABLE: AGENT_BIN,
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: 'test-key',
        CLAUDE_CONFIG_DIR: tempDir('agent-acp-config-'),
        AGENT_MAX_RETRIES: '1',
      },
      (method, params) => {
        if (method === 'session/request_permission')
          return { outcome: { outcome: 'selected', optionId: params.options[0].optionId } };
        // The editor's terminal: it ran the command and holds its output.
        if (method === 'terminal/create') return { terminalId: 'term-1' };
        if (method === 'terminal/wait_for_exit') return { exitCode: 0, signal: null };
        if (method === 'terminal/output')
          return {
            output: 'PASS 12 tests (editor terminal)\n',
            truncated: false,
            exitStatus: { exitCode: 0, signal: null },
          };
        if (method === 'terminal/release' || method === 'terminal/kill') return {};
        return undefined;
      },
    );
    try {
      await ed.call('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      });
      const session = await ed.call('session/new', { cwd, mcpServers: [] });
      const done = await ed.call('session/prompt', {
        sessionId: session.sessionId,
        prompt: [{ type: 'text', text: 'run the tests' }],
      });
      expect(done.stopReason).toBe('end_turn');
      const created = ed.served.filter((s) => s.method === 'terminal/create');
      expect(created.map((s) => s.params.command)).toEqual(['npm test']);
      const seen = resultsById(api.requests[1]).b1;
      expect(seen.text).not.toMatch(/No tool call ID found/);
      expect(seen.isError).toBe(false);
      expect(seen.text).toContain('PASS 12 tests (editor terminal)');
      // The adapter attached the terminal to the editor's tool call for this very tool_use.
      const attached = ed.updates.find(
        (u) => u.sessionUpdate === 'tool_call_update' && u.content?.[0]?.type === 'terminal',
      );
      expect(attached).toMatchObject({ toolCallId: 'b1', content: [{ type: 'terminal', terminalId: 'term-1' }] });
    } finally {
      ed.close();
    }
  });
  it("the adapter's MCP Edit writes through the editor and the editor is shown the diff (the result's content blocks reach the adapter unflattened)", async () => {
    const cwd = tempDir();
    const file = join(cwd, 'a.ts');
    api = await startFakeApi([
      toolUse('mcp__acp__Edit', { file_path: file, old_string: 'const a = 1;', new_string: 'const a = 2;' }, 'e1'),
      text('edited'),
    ]);
    const written: Array<{ path: string; content: string }> = [];
    const ed = editor(
      {
        ...process.env,
        CLAUDE_CODE_EXECUTABLE: AGENT_BIN,
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: 'test-key',
        CLAUDE_CONFIG_DIR: tempDir('agent-acp-config-'),
        AGENT_MAX_RETRIES: '1',
      },
      (method, params) => {
        if (method === 'session/request_permission')
          return { outcome: { outcome: 'selected', optionId: params.options[0].optionId } };
        if (method === 'fs/read_text_file') return { content: 'const a = 1;\nexport { a };\n' };
        if (method === 'fs/write_text_file') {
          written.push({ path: params.path, content: params.content });
          return {};
        }
        return undefined;
      },
    );
    try {
      await ed.call('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      });
      const session = await ed.call('session/new', { cwd, mcpServers: [] });
      const done = await ed.call('session/prompt', {
        sessionId: session.sessionId,
        prompt: [{ type: 'text', text: 'set a to 2' }],
      });
      expect(done.stopReason).toBe('end_turn');
      expect(written).toEqual([{ path: file, content: 'const a = 2;\nexport { a };\n' }]);
      expect(resultsById(api.requests[1]).e1.isError).toBe(false);
      const diffs = ed.updates
        .filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'e1')
        .flatMap((u) => u.content ?? [])
        .filter((c: { type: string }) => c.type === 'diff');
      expect(diffs).toEqual([
        expect.objectContaining({
          type: 'diff',
          path: file,
          oldText: expect.stringContaining('const a = 1;'),
          newText: expect.stringContaining('const a = 2;'),
        }),
      ]);
    } finally {
      ed.close();
    }
  });
});
