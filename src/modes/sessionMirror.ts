// --session-mirror in the modes that write protocol lines: each transcript entry, once written
// locally, also goes to the host as a `transcript_mirror` line (the SDK's sessionStore option).
import type { CliOptions } from '../cli/options.js';
import type { StdoutWriter } from '../protocol/writer.js';
import type { MirrorSink } from '../transcript/mirror.js';

/** The session's mirror (SessionIO.mirror): undefined without --session-mirror. */
export function sessionMirror(o: CliOptions, writer: StdoutWriter): MirrorSink | undefined {
  if (!o.sessionMirror) return undefined;
  // A transcript entry is a JSON object (the transcript writes nothing else), as the line's entries are.
  return (filePath, entries) =>
    void writer.send({ type: 'transcript_mirror', filePath, entries: entries as Array<Record<string, unknown>> });
}
