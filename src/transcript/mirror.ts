// --session-mirror: every transcript entry written locally is also sent to the host as a
// `transcript_mirror` line ({filePath, entries}), which the official SDK hands to its
// `sessionStore` adapter (it maps filePath under $CLAUDE_CONFIG_DIR/projects to the store's key).
// One sink per process: subagent and teammate transcripts are mirrored too, under their own paths.
// The entry goes out only after the local write succeeded, as the SDK's contract requires. The mode
// makes the sink (src/modes/sessionMirror.ts) and the session hands it to each transcript it opens.
export type MirrorSink = (filePath: string, entries: object[]) => void;
