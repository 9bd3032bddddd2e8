// The process's one voice on stderr: `agent: …` lines a person reads (warnings, skipped input,
// failures that do not stop the run). stdout carries protocol lines only, so nothing here writes
// there. The debug log (--debug, --debug-file, debugLog.ts) writes its stderr lines through
// `writeStderr` too.

/** Writes raw text to stderr (the one place that does). */
export function writeStderr(text: string): void {
  process.stderr.write(text);
}

/** One `agent: <message>` line on stderr. */
export function logWarning(message: string): void {
  writeStderr(`agent: ${message}\n`);
}
