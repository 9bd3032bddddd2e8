/** A session that cannot start (a bad flag or setting): the message is shown, and the process exits with `exitCode`. */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
