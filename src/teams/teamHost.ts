// What the session sees of its team, apart from the team itself (team.ts): the events the team
// tells and what the runner asks of it after each result. Imports nothing, so the session reaches
// these types without reaching the team's teammates and, through them, the subagent runs
// (test/unit/layering.test.ts: the session reaches nothing of src/agents).

/** What the team tells the host besides its teammates' own loop events (wire.ts makes the line). */
export type TeamEvent = { kind: 'problem'; message: string };

/** What the session runner asks of the team after each result (see SessionRunner.run). */
export interface TeamHost {
  /** The lead's unread mail as one prompt (`<teammate-message>` blocks), or null. */
  takeLeadPrompt(): Promise<string | null>;
  /** A teammate is still live (working or idle). */
  live(): boolean;
  /** A teammate is working right now. */
  working(): boolean;
  /** Resolves when something changes (mail for the lead, a teammate's status), or after `ms`. */
  waitForChange(ms: number): Promise<void>;
  /** Stop every working teammate (the teammate timeout); each is reported as stopped. */
  stopWorking(reason: string): Promise<void>;
  /** End every idle teammate (the session is over); their work is done, nothing is cut. */
  endIdle(): Promise<void>;
}
