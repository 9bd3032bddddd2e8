// A command's output, however large, as the model should see it: whole when it is short; else its
// first and last characters, and a file that holds it (the start up to a cap, then the end).
// Memory stays bounded: only the head, the tail and stdout's own tail are kept.
import { closeSync, openSync, writeSync } from 'node:fs';
import { CappedText } from '../src/util/processGroup.js';

export interface SpillLimits {
  /** Output up to this many characters is shown whole. */
  inlineChars: number;
  /** Characters of the start and of the end shown when it is not. */
  previewChars: number;
  /** The file stops growing here (its last `tailBytes` are kept for the end of the output). */
  maxFileBytes: number;
  tailBytes: number;
}

export class OutputSpill {
  private head = '';
  private readonly tail: CappedText;
  private readonly stdoutTail: CappedText;
  private fd: number | undefined;
  private fileBytes = 0;
  /** Bytes the file could not take (past its cap), between its head and its tail. */
  private droppedBytes = 0;
  private readonly fileTail: CappedText;
  totalChars = 0;
  filePath: string | undefined;
  /** Why the file could not be written (the output is then only in the preview). */
  fileError: string | undefined;

  constructor(
    private readonly limits: SpillLimits,
    private readonly makePath: () => string,
  ) {
    this.tail = new CappedText(limits.previewChars);
    this.stdoutTail = new CappedText(limits.previewChars);
    this.fileTail = new CappedText(limits.tailBytes);
  }

  push(chunk: string, stream: 'stdout' | 'stderr' = 'stdout'): void {
    const before = this.totalChars;
    this.totalChars += chunk.length;
    // The head is filled from any chunk, however large: a 5 MB single write still has a start.
    if (this.head.length < this.limits.inlineChars)
      this.head += chunk.slice(0, this.limits.inlineChars - this.head.length);
    this.tail.push(chunk);
    if (stream === 'stdout') this.stdoutTail.push(chunk);
    if (this.totalChars <= this.limits.inlineChars) return;
    if (this.fd === undefined && this.fileError === undefined) {
      this.openFile();
      // What came before this chunk is all in the head (we were under the inline limit).
      if (this.fd !== undefined) this.write(this.head.slice(0, before));
    }
    this.write(chunk);
  }

  private openFile(): void {
    try {
      this.filePath = this.makePath();
      this.fd = openSync(this.filePath, 'w', 0o600);
    } catch (err) {
      this.fileError = (err as Error).message;
      this.filePath = undefined;
    }
  }

  private write(chunk: string): void {
    if (this.fd === undefined) return;
    const buf = Buffer.from(chunk, 'utf8');
    const room = this.limits.maxFileBytes - this.limits.tailBytes - this.fileBytes;
    const part = buf.length <= room ? buf : buf.subarray(0, Math.max(0, room));
    try {
      if (part.length) writeSync(this.fd, part);
    } catch (err) {
      // A full disk: keep what the file has, say so, go on in memory.
      this.fileError = (err as Error).message;
      this.closeFd();
      return;
    }
    this.fileBytes += part.length;
    if (part.length < buf.length) {
      this.droppedBytes += buf.length - part.length;
      this.fileTail.push(buf.subarray(part.length).toString('latin1'));
    }
  }

  /** Finish the file: past its cap, it ends with a marker and the output's last bytes. */
  close(): void {
    if (this.fd === undefined) return;
    const tailBytes = Buffer.from(this.fileTail.toString(), 'latin1');
    const dropped = this.droppedBytes - tailBytes.length;
    try {
      if (this.droppedBytes > 0) {
        const mib = Math.round(this.limits.maxFileBytes / (1024 * 1024));
        writeSync(this.fd, `\n[… ${dropped} bytes dropped here: the file is capped at ${mib} MiB …]\n`);
        writeSync(this.fd, tailBytes);
      }
    } catch (err) {
      this.fileError = (err as Error).message;
    }
    this.keptTailBytes = tailBytes.length;
    this.closeFd();
  }

  private keptTailBytes = 0;

  private closeFd(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      /* nothing more to save */
    }
    this.fd = undefined;
  }

  get spilled(): boolean {
    return this.totalChars > this.limits.inlineChars;
  }

  get fileSize(): number {
    return this.fileBytes + this.keptTailBytes;
  }

  /**
   * The output so far, to open a file that goes on with it (a command moved to the background):
   * whole when short, else where the rest is and its last characters.
   */
  handOff(): string {
    if (!this.spilled) return this.head;
    const last = this.tail.toString();
    const where = this.filePath && this.fileError === undefined ? `are in ${this.filePath}` : 'could not be saved';
    return `[the first ${this.totalChars - last.length} characters of output ${where}]\n${last}`;
  }

  /** What the model is told: the whole output, or where it is and its start and end. */
  text(): string {
    if (!this.spilled) return this.head;
    const n = this.limits.previewChars;
    const first = this.head.slice(0, n);
    const last = this.tail.toString();
    const omitted = this.totalChars - first.length - last.length;
    let where: string;
    if (this.filePath && this.fileError === undefined) {
      const dropped = this.droppedBytes - this.keptTailBytes;
      where =
        `Full output saved to: ${this.filePath}` +
        (this.droppedBytes > 0
          ? ` (it holds the first ${this.fileBytes} bytes and the last ${this.keptTailBytes}; ${dropped} bytes in between were dropped)`
          : '');
    } else {
      where = `The full output could not be saved (${this.fileError}${this.filePath ? `; ${this.filePath} is incomplete` : ''}); only this preview is left`;
    }
    let body = `Output too large (${this.totalChars} characters). ${where}\n\nFirst ${first.length} characters:\n${first}`;
    // Spilled output is longer than both ends together (inlineChars > 2 × previewChars).
    body += `\n[… ${omitted} characters omitted …]\n\nLast ${last.length} characters:\n${last}`;
    // stdout's last line, when stderr came after it and pushed it out of the tail.
    const stdoutEnd = this.stdoutTail.toString().trimEnd();
    const lastLine = stdoutEnd.slice(stdoutEnd.lastIndexOf('\n') + 1);
    if (lastLine && !last.includes(lastLine))
      body += `\n\nLast ${stdoutEnd.length} characters of stdout:\n${stdoutEnd}`;
    return body.replace(/\s+$/, '');
  }
}
