// Host-side helpers for the tests that drive bin/agent through the official Claude Agent SDK.
import { query, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { AGENT_BIN, tempDir } from './harness.js';

/** query() options that run bin/agent against the fake API at `apiUrl`; `extra` is merged on top. */
export function sdkOptions(apiUrl: string, cwd: string, extra: Record<string, unknown> = {}) {
  return {
    pathToClaudeCodeExecutable: AGENT_BIN,
    cwd,
    env: {
      ...process.env,
      ANTHROPIC_BASE_URL: apiUrl,
      ANTHROPIC_API_KEY: 'test-key',
      AGENT_MAX_RETRIES: '1',
      CLAUDE_CONFIG_DIR: tempDir('agent-sdk-config-'),
      // The agent's session temp folder outlives it: one the test file removes.
      TMPDIR: tempDir('agent-tmp-'),
    },
    stderr: (s: string) => process.stderr.write(`[agent stderr] ${s}`),
    ...extra,
  };
}

/** An async-iterable prompt the test feeds by hand, as a streaming host does. */
export function promptStream() {
  const queue: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  return {
    push(text: string) {
      queue.push({
        type: 'user',
        session_id: '',
        parent_tool_use_id: null,
        message: { role: 'user', content: [{ type: 'text', text }] },
      });
      wake?.();
    },
    end() {
      done = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length) yield queue.shift()!;
        if (done) return;
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    },
  };
}

/** Prompts fed in turn: the first at once, the next on each `onResult()`, then the input ends. */
export function prompts(texts: string[]) {
  const stream = promptStream();
  const rest = [...texts];
  stream.push(rest.shift()!);
  return {
    /** Call on each result: sends the next prompt or ends the input. */
    onResult() {
      if (rest.length) stream.push(rest.shift()!);
      else stream.end();
    },
    [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator](),
  };
}

/** Collects what a query says until its `n`th result, then ends its input; returns every message. */
export async function collectUntilResults(
  q: AsyncIterable<SDKMessage>,
  input: { end(): void },
  n: number,
): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  let results = 0;
  for await (const m of q) {
    messages.push(m);
    if (m.type === 'result' && ++results === n) input.end();
  }
  return messages;
}

/**
 * Runs a query over `texts` (one prompt per result) to its end and collects what it said; an error
 * the SDK throws (e.g. a non-zero exit after an error result) is returned, not thrown.
 */
export async function runQuery(texts: string[], options: Record<string, unknown>) {
  const input = prompts(texts);
  const messages: SDKMessage[] = [];
  let error: unknown;
  try {
    for await (const m of query({ prompt: input as never, options: options as never })) {
      messages.push(m);
      if (m.type === 'result') input.onResult();
    }
  } catch (err) {
    error = err;
  }
  return { messages, results: messages.filter((m) => m.type === 'result') as Array<Record<string, any>>, error };
}

/**
 * A host's interrupt while a background task works (perTaskStopAffordance): `first` starts the
 * task, the prompt after its result ("think long", which the fake API must answer slowly) is
 * interrupted 500 ms in, and the input ends at the task's notification. Returns that notification's
 * status (how the task ended).
 */
export async function interruptWhileTaskWorks(first: string, options: Record<string, unknown>): Promise<string> {
  const input = promptStream();
  const q = query({ prompt: input as never, options: options as never });
  input.push(first);
  let results = 0;
  let status = '';
  try {
    for await (const m of q as AsyncIterable<SDKMessage>) {
      const msg = m as Record<string, any>;
      if (msg.type === 'result' && ++results === 1) {
        input.push('think long');
        setTimeout(() => void q.interrupt(), 500);
      }
      if (msg.type === 'system' && msg.subtype === 'task_notification') {
        status = msg.status;
        input.end();
      }
    }
  } catch (err) {
    // The interrupted turn may be the last result: the process exits 1, which the SDK throws.
    if (!status || !/exited with code 1/.test((err as Error).message)) throw err;
  }
  return status;
}
