// What one turn changes for itself — a slash command's or a loaded skill's allowed-tools and model —
// applied while the turn runs and undone when it ends. Built before the runner, so the services a
// tool reaches (a loaded skill) can hold it without holding the runner.
export class TurnScope {
  private active = false;
  private readonly undo: Array<() => void> = [];
  /** A command's or a loaded skill's model, for this turn only. */
  model: string | undefined;

  /** `allow` adds allow rules and returns their removal (the session's permissions). */
  constructor(private readonly allow?: (rules: string[]) => () => void) {}

  begin(): void {
    this.active = true;
  }

  /** `rules` run without asking and `model` answers, for the rest of the turn; false when no turn runs. */
  apply(rules: string[], model: string | undefined): boolean {
    if (!this.active) return false;
    if (rules.length && this.allow) this.undo.push(this.allow(rules));
    if (model) this.model = model;
    return true;
  }

  end(): void {
    for (const undo of this.undo.splice(0).reverse()) undo();
    this.model = undefined;
    this.active = false;
  }
}
