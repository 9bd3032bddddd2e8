// Monitor: a background watch. A shell command runs as a background task; each line it prints on
// stdout is an event that reaches the model as a notification between turns, until the command
// exits, the monitor expires or it is stopped. src/tasks/monitor.ts runs it.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import type { CommandSandbox } from './sandbox.js';
import { BACKGROUND_DISABLED_MESSAGE, backgroundTasksDisabled } from './foreground.js';
import { defineTool, ToolError, type ToolContext } from './tool.js';

export const MONITOR_DEFAULT_TIMEOUT_MS = 300_000;
/** Longer deadlines are cut to this (the reference's cap, measured from its tool schema). */
export const MONITOR_MAX_TIMEOUT_MS = 600_000;

export interface MonitorService {
  start(
    command: string,
    opts: { description: string; timeoutMs: number; cwd: string; toolUseId: string; sandbox?: CommandSandbox },
  ): { taskId: string; outputFile: string };
  /** A WebSocket source: each text frame is an event. */
  startWs(
    ws: { url: string; protocols?: string[] },
    opts: { description: string; timeoutMs: number; toolUseId: string },
  ): { taskId: string; outputFile: string };
}

export const monitorInputSchema = lazySchema(() =>
  z.strictObject({
    description: z
      .string()
      .describe(
        'What is being watched, in a few specific words ("errors in deploy.log"); every notification shows it.',
      ),
    timeout_ms: z
      .number()
      .min(1000)
      .max(3_600_000)
      .default(MONITOR_DEFAULT_TIMEOUT_MS)
      .describe(
        `Stop the watch after this many milliseconds (default ${MONITOR_DEFAULT_TIMEOUT_MS}; more than ${MONITOR_MAX_TIMEOUT_MS} is cut to ${MONITOR_MAX_TIMEOUT_MS}). You are told when it expires and can start it again.`,
      ),
    command: z
      .string()
      .optional()
      .describe('The shell command to run. Each line it prints on stdout is one event; its exit ends the watch.'),
    ws: z
      .strictObject({
        url: z.string(),
        protocols: z.array(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/)).optional(),
      })
      .optional()
      .describe('A WebSocket to watch instead of a command: each text frame is one event; its close ends the watch.'),
  }),
);

export const MonitorTool = defineTool({
  name: 'Monitor',
  deferred: true,
  description: `Watch something in the background and be told each time it happens. The command runs as a background task; every line it prints on stdout becomes a notification in this conversation while you go on working. A notification is an event, never a reply from the user.

Which tool:
- One notice when something is done or ready ("tell me when the build finishes"): use Bash with run_in_background and a command that exits at that moment, e.g. \`until grep -q "listening" server.log; do sleep 1; done\`.
- A notice for every occurrence ("each time an error is logged"): Monitor with a command that keeps running, e.g. \`tail -F app.log | grep --line-buffered -E "ERROR|FATAL"\`.
- A notice per step of something that ends ("each test file's result, until the run is over"): Monitor with a command that prints the steps and then exits.

Writing the command:
- Print only the lines you would act on. Every line is a message in the conversation; a monitor that floods it is stopped.
- Every stage of a pipe must flush each line: \`grep --line-buffered\`, \`awk '{ print; fflush() }'\`, \`sed -u\`. A stage that buffers (\`head\`, a plain \`grep\` into a pipe) holds the events back.
- Match failures as well as success: a crash, a hang or an error exit must print something too, or silence will look like "still running". For a command you run yourself, merge its stderr (\`2>&1\`) before filtering.
- In polling loops, keep going on a failed check (\`|| true\`) and poll remote services no more than every 30 s.
- stderr is not an event; it goes to the task's output file.

Lines printed within 200 ms of each other arrive together as one notification. The watch ends when the command exits (you are told its exit code), when timeout_ms passes (you are told how many events there were; start it again if you still need it), or when you stop it with TaskStop. It runs in the same environment, and under the same sandbox, as Bash.

A WebSocket source instead of a command: \`Monitor({ws: {url: "wss://example.com/events", protocols?: [...]}, description: "deploy events"})\`. Each text frame is one event (a frame with several lines stays one event); a binary frame is reported as "[binary frame, N bytes]"; an error is reported, and the socket's close ends the watch with its close code. Prefer it to a command such as websocat. Not available while the Bash sandbox is on (the socket would bypass its network rules).`,
  inputSchema: monitorInputSchema,
  kind: 'execute',
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  // A ws source has no command: it is judged as an unknown command is (asked, unless a rule allows Monitor).
  access: (input) => ({ command: input.command ?? '' }),
  label: (input) => `Monitor: ${input.description}`,
  async *call(input, ctx) {
    const svc = monitorService(ctx);
    if (backgroundTasksDisabled()) throw new ToolError(`Monitor: ${BACKGROUND_DISABLED_MESSAGE}`);
    if (input.command !== undefined && input.ws !== undefined)
      throw new ToolError('Give either `command` or `ws`, not both.');
    const timeoutMs = Math.min(input.timeout_ms, MONITOR_MAX_TIMEOUT_MS);
    let taskId: string;
    if (input.ws) {
      if (ctx.services?.sandbox?.status.active)
        throw new ToolError(
          'A ws source is not available while the Bash sandbox is on: the socket would bypass its network rules. Watch it with a command instead.',
        );
      let url: URL;
      try {
        url = new URL(input.ws.url);
      } catch {
        throw new ToolError(`ws.url is not a URL: ${input.ws.url}`);
      }
      if (url.protocol !== 'ws:' && url.protocol !== 'wss:')
        throw new ToolError(`ws.url must be a ws:// or wss:// URL, not ${url.protocol}`);
      ({ taskId } = svc.startWs(input.ws, { description: input.description, timeoutMs, toolUseId: ctx.toolUseId }));
    } else {
      if (!input.command?.trim()) throw new ToolError('Give `command` (the shell command to watch) or `ws`.');
      ({ taskId } = svc.start(input.command, {
        description: input.description,
        timeoutMs,
        cwd: ctx.cwd,
        toolUseId: ctx.toolUseId,
        sandbox: ctx.services?.sandbox,
      }));
    }
    return {
      content: `Monitor started as task ${taskId}; it ends when the ${input.ws ? 'socket closes' : 'command exits'} or after ${Math.round(timeoutMs / 1000)} s. Each ${input.ws ? 'text frame' : 'line the command prints'} comes to you as a notification: keep working, and do not sleep or poll for it. A notification is an event, not the user's reply. TaskStop ${taskId} ends it sooner.`,
      data: { taskId, timeoutMs, persistent: false },
    };
  },
});

function monitorService(ctx: ToolContext): MonitorService {
  const s = ctx.services?.monitor;
  if (!s) throw new ToolError('Monitor is not available here: only the main conversation can start a monitor.');
  return s;
}
