// Telemetry wired into a session (src/telemetry/): it counts the session, watches the model calls,
// the tool pipeline's decisions and results, the prompts, and each turn's working time, and is shut
// down (a bounded last export) when the session closes or the process is stopped. Off, it changes
// nothing: the model client, output and pipeline are the session's own.
import type { CallModel } from '../loop/model.js';
import type { ToolTelemetryEvent } from '../loop/toolPipeline.js';
import type { CliOptions } from '../cli/options.js';
import { VERSION } from '../cli/options.js';
import { StartupError } from '../session/guards.js';
import type { SessionEvent } from '../session/events.js';
import type { UserContent } from '../session/promptBatch.js';
import type { WireLine } from '../session/wire.js';
import { observeModelCalls } from '../telemetry/modelCalls.js';
import { NO_TELEMETRY, type Telemetry } from '../telemetry/recorder.js';
import { startTelemetry } from '../telemetry/start.js';
import type { SessionBase } from './sessionStart.js';

type Output = (event: SessionEvent, line: WireLine | null) => Promise<void>;

export interface SessionTelemetry {
  telemetry: Telemetry;
  /** The model client to use: the session's own, watched when telemetry is on. */
  callModel: CallModel;
  /** The mode's output, watched for each turn's duration (active time). */
  output: Output;
  /** The tool pipeline's observer (undefined when off). */
  onToolTelemetry: ((event: ToolTelemetryEvent) => void) | undefined;
  /** Tells a prompt (its text) as it is submitted. */
  userPrompt(content: UserContent): void;
}

export async function setupSessionTelemetry(
  o: CliOptions,
  base: SessionBase,
  p: { output: Output; interactive: boolean },
): Promise<SessionTelemetry> {
  let telemetry: Telemetry;
  try {
    telemetry = await startTelemetry({
      env: base.env,
      sessionId: base.start.sessionId,
      version: VERSION,
      apiProvider: base.config.apiProvider,
      entrypoint: p.interactive ? 'cli' : 'sdk',
      headersHelper: base.loaded.settings.otelHeadersHelper,
    });
  } catch (err) {
    throw new StartupError(`telemetry: ${(err as Error).message}`, 2);
  }
  if (!telemetry.enabled)
    return {
      telemetry: NO_TELEMETRY,
      callModel: base.callModel,
      output: p.output,
      onToolTelemetry: undefined,
      userPrompt() {},
    };
  telemetry.sessionStarted(o.continue ? 'continue' : base.start.source === 'resume' ? 'resume' : 'fresh');
  return {
    telemetry,
    callModel: observeModelCalls(base.callModel, telemetry),
    output: (ev, line) => {
      if (ev.type === 'result') telemetry.activeTime(ev.result.durationMs / 1000, 'cli');
      return p.output(ev, line);
    },
    onToolTelemetry: (ev) => (ev.kind === 'decision' ? telemetry.toolDecision(ev) : telemetry.toolResult(ev)),
    userPrompt(content) {
      const text =
        typeof content === 'string'
          ? content
          : content
              .filter((b) => b.type === 'text' && typeof b.text === 'string')
              .map((b) => b.text as string)
              .join('\n');
      telemetry.userPrompt(text);
    },
  };
}
