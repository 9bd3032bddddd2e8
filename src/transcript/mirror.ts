// --session-mirror: every transcript entry written locally is also sent to the host as a
// `transcript_mirror` line ({filePath, entries}), which the official SDK hands to its
// `sessionStore` adapter (it maps filePath under $CLAUDE_CONFIG_DIR/projects to the store's key).
// One sink per process: subagent and teammate transcripts are mirrored too, under their own paths.
// The entry goes out only after the local write succeeded, as the SDK's contract requires.
export type MirrorSink = (filePath: string, entries: object[]) => void;

let sink: MirrorSink | undefined;

/** Start (or stop, with undefined) mirroring the process's transcript writes. */
export function mirrorTranscriptsTo(next: MirrorSink | undefined): void {
  sink = next;
}

/** Called by the transcript writer after each successful local write. */
export function mirrorEntry(filePath: string, entry: object): void {
  sink?.(filePath, [entry]);
}
