// A detached teammate (src/teams/detachedTeammates.ts) is its lead's child. Its lead ends it on
// every exit it gets to run code for; a lead killed with SIGKILL cannot, so the teammate watches
// its parent itself: once it has been re-parented (the lead is gone), it ends as on SIGTERM.
export const LEAD_PID_VAR = 'AGENT_TEAMMATE_LEAD_PID';

/** How often the parent is looked at (a read of a number: free). */
const WATCH_MS = 500;

export function watchLead(
  env: NodeJS.ProcessEnv = process.env,
  onGone = () => process.kill(process.pid, 'SIGTERM'),
): void {
  const raw = env[LEAD_PID_VAR];
  if (raw === undefined) return;
  // Not inherited by what the teammate starts.
  delete env[LEAD_PID_VAR];
  const lead = Number(raw);
  if (!Number.isInteger(lead) || lead <= 0) return;
  const timer = setInterval(() => {
    if (process.ppid === lead) return;
    clearInterval(timer);
    onGone();
  }, WATCH_MS);
  timer.unref();
}
