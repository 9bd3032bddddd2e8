// The Bash sandbox as tools see it (ToolServices.sandbox): part of the tool contract. src/sandbox
// implements it (setupSandbox); Bash, Monitor and background shells run their commands through it
// (bashRun.ts), and nothing in tools/ knows how it is built.

/** What `init` and the start-up check report. */
export interface SandboxStatus {
  enabled: boolean;
  /** Bash commands really run inside the sandbox. */
  active: boolean;
  /** Why an enabled sandbox is not active (then commands run unsandboxed). */
  reason?: string;
}

/** One wrapped command: the shell text to run, and what the sandbox blocked once it has ended. */
export interface WrappedCommand {
  command: string;
  /** The same as `command` as a program and its arguments, to run without a shell in front. */
  argv?: string[];
  /** Environment to add when running `command` (it carries the user's command in). */
  env: Record<string, string>;
  /** Call once the command's processes are gone: releases per-command state, returns the violations. */
  finish(): Promise<string[]>;
}

/** The sandbox as tools see it (ToolContext.services.sandbox). */
export interface CommandSandbox {
  readonly status: SandboxStatus;
  readonly autoAllowBashIfSandboxed: boolean;
  readonly allowUnsandboxedCommands: boolean;
  /** Would this command run inside the sandbox? `disableRequested`: the call's dangerouslyDisableSandbox. */
  sandboxes(command: string, disableRequested?: boolean): boolean;
  wrap(command: string, opts: { commandId: string; signal?: AbortSignal }): Promise<WrappedCommand>;
  /** A command is coming (the model started a Bash call): make its wrap now, if none is ready. */
  prepare(): void;
}
