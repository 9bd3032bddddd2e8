// The session's model client: the API, the API with every call recorded (--record), or a
// recording served instead of the API (--replay).
import type { CallModel } from '../loop/model.js';
import type { ModelApi } from '../loop/modelClient.js';
import type { CliOptions } from '../cli/options.js';

/** `api` (the session's, with its credential commands), recorded or replaced. Throws with a message naming the flag. */
export async function modelClientFor(
  o: Pick<CliOptions, 'record' | 'replay' | 'replaySpeed'>,
  api: ModelApi,
): Promise<CallModel> {
  if (o.record === undefined && o.replay === undefined) return api.call;
  // Loaded only when asked for: ordinary starts do not pay for it.
  const rec = await import('../loop/recording.js');
  if (o.replay !== undefined)
    return rec.replayModel(rec.loadRecording(o.replay), { speed: o.replaySpeed === 1 ? 1 : 0, file: o.replay });
  try {
    return rec.recordingModel(api.call, o.record!);
  } catch (err) {
    throw new Error(`--record: cannot write ${o.record}: ${(err as Error).message}`);
  }
}
