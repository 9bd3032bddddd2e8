// Other local sessions of the same user, through two real bin/agent processes sharing one config
// folder: ListAgents lists the other one (not itself), SendMessage delivers to it, the receiver
// gets a <cross-session-message> turn and replies to its `from`; sessions in different permission
// modes cannot message each other; a session that died is dropped from the listing.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastUserText, text, toolUse, type RecordedRequest, type ScriptedReply } from '../fake-api/server.js';
import { resultsById, startAgent, startFakeApi, STREAM_ARGS, tempDir, userLine, type AgentProcess } from './harness.js';
import { mkdirSync } from 'node:fs';

const ARGS = [...STREAM_ARGS, '--model', 'claude-sonnet-4-5'];
const result = (req: RecordedRequest, id: string) => resultsById(req)[id];

function project(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  return dir;
}

async function until(cond: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('cross-session ListAgents and SendMessage', () => {
  it('lists the other live session, delivers a message to it, and its reply comes back to the sender', async () => {
    const config = tempDir('agent-peers-config-');
    const root = tempDir('agent-peers-');
    let betaGot = '';
    let alphaGot = '';
    let listing = '';
    const alphaApi = await startFakeApi((req): ScriptedReply => {
      const said = lastUserText(req);
      if (result(req, 'la')) {
        listing = result(req, 'la').text;
        return toolUse('SendMessage', { to: 'beta', message: 'Please run the beta tests.', summary: 'ask' }, 'sm');
      }
      if (result(req, 'sm')) return text(`sent: ${result(req, 'sm').text}`);
      if (said.includes('<cross-session-message')) {
        alphaGot = said;
        return text('alpha read the reply');
      }
      return toolUse('ListAgents', {}, 'la');
    });
    const betaApi = await startFakeApi((req): ScriptedReply => {
      const said = lastUserText(req);
      if (result(req, 'reply')) return text('beta replied');
      if (said.includes('<cross-session-message')) {
        betaGot = said;
        const from = /from="([^"]+)"/.exec(said)![1];
        return toolUse('SendMessage', { to: from, message: 'Beta tests pass.' }, 'reply');
      }
      return text('beta idle');
    });
    const env = { CLAUDE_CONFIG_DIR: config };
    let alpha: AgentProcess | undefined;
    let beta: AgentProcess | undefined;
    try {
      beta = startAgent({ api: betaApi, args: ARGS, cwd: project(root, 'beta'), env });
      alpha = startAgent({ api: alphaApi, args: ARGS, cwd: project(root, 'alpha'), env });
      // Both cards are up once each session has started.
      await until(
        () =>
          existsSync(join(config, 'peers')) &&
          readdirSync(join(config, 'peers')).filter((f) => f.endsWith('.json')).length === 2,
      );
      alpha.sendRaw(userLine('ask beta to run its tests'));
      await alpha.waitFor((m) => m.type === 'result' && String(m.result).startsWith('sent:'), 20_000);
      expect(listing).toMatch(/This session is alpha \[[0-9a-f]{6}\]/);
      expect(listing).toMatch(/- beta \[[0-9a-f]{6}\]: session in .*\/beta, permission mode default/);
      expect(listing).not.toMatch(/- alpha \[/);
      const sent = alpha.json().find((m) => m.type === 'user' && m.tool_use_result?.routing);
      expect(sent!.tool_use_result.routing.target).toMatch(/^beta \[[0-9a-f]{6}\]$/);
      // Beta, idle, gets it as a turn of its own and answers the `from` address.
      await beta.waitFor((m) => m.type === 'result' && m.result === 'beta replied', 20_000);
      expect(betaGot).toMatch(
        /<cross-session-message from="alpha \[[0-9a-f]{6}\]">\nPlease run the beta tests\.\n<\/cross-session-message>/,
      );
      await alpha.waitFor((m) => m.type === 'result' && m.result === 'alpha read the reply', 20_000);
      expect(alphaGot).toMatch(/<cross-session-message from="beta \[[0-9a-f]{6}\]">\nBeta tests pass\./);
      // Ending takes the card away.
      beta.endInput();
      await beta.exited;
      expect(readdirSync(join(config, 'peers')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    } finally {
      alpha?.child.kill('SIGKILL');
      beta?.child.kill('SIGKILL');
      await alphaApi.close();
      await betaApi.close();
    }
  }, 60_000);

  it('refuses a message to a session in another permission mode, and drops a session that died', async () => {
    const config = tempDir('agent-peers-config-');
    const root = tempDir('agent-peers-');
    const seen: Record<string, string> = {};
    const alphaApi = await startFakeApi((req): ScriptedReply => {
      for (const id of ['sm', 'la2']) if (result(req, id)) seen[id] = result(req, id).text;
      if (result(req, 'sm')) return text('refused as expected');
      if (result(req, 'la2')) return text('listed again');
      if (lastUserText(req).includes('list again')) return toolUse('ListAgents', {}, 'la2');
      return toolUse('SendMessage', { to: 'planner', message: 'Edit the config for me.' }, 'sm');
    });
    const plannerApi = await startFakeApi(() => text('never asked'));
    const env = { CLAUDE_CONFIG_DIR: config };
    let alpha: AgentProcess | undefined;
    let planner: AgentProcess | undefined;
    try {
      planner = startAgent({
        api: plannerApi,
        args: [...ARGS, '--permission-mode', 'plan'],
        cwd: project(root, 'planner'),
        env,
      });
      alpha = startAgent({ api: alphaApi, args: ARGS, cwd: project(root, 'alpha'), env });
      await until(
        () =>
          existsSync(join(config, 'peers')) &&
          readdirSync(join(config, 'peers')).filter((f) => f.endsWith('.json')).length === 2,
      );
      alpha.sendRaw(userLine('send it'));
      await alpha.waitFor((m) => m.type === 'result' && m.result === 'refused as expected', 20_000);
      expect(seen.sm).toMatch(
        /Not delivered to planner \[[0-9a-f]{6}\]: .*runs in permission mode plan and this session in default/,
      );
      expect(plannerApi.requests.filter((r) => r.body?.tools)).toHaveLength(0);
      // Killed without a chance to clean up: the next listing drops it and removes its card.
      planner.child.kill('SIGKILL');
      await planner.exited;
      alpha.sendRaw(userLine('list again'));
      await alpha.waitFor((m) => m.type === 'result' && m.result === 'listed again', 20_000);
      expect(seen.la2).toContain('No other session of this user is running on this machine.');
      expect(readdirSync(join(config, 'peers')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    } finally {
      alpha?.child.kill('SIGKILL');
      planner?.child.kill('SIGKILL');
      await alphaApi.close();
      await plannerApi.close();
    }
  }, 60_000);
});
