// --session-mirror in the modes that write protocol lines: each transcript entry, once written
// locally, also goes to the host as a `transcript_mirror` line (the SDK's sessionStore option).
import type { CliOptions } from '../cli/options.js';
import type { StdoutWriter } from '../protocol/writer.js';
import { mirrorTranscriptsTo } from '../transcript/mirror.js';

export function startSessionMirror(o: CliOptions, writer: StdoutWriter): void {
  if (!o.sessionMirror) return;
  // A transcript entry is a JSON object (the transcript writes nothing else), as the line's entries are.
  mirrorTranscriptsTo(
    (filePath, entries) =>
      void writer.send({ type: 'transcript_mirror', filePath, entries: entries as Array<Record<string, unknown>> }),
  );
}
