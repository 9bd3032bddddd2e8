// The teammate mode: a program (claude-code-controller, the reference CLI, this runtime's lead)
// started this process as one member of a team (src/teams/teammateFlags.ts). There is no prompt
// and no host: it serves its inbox file until it is shut down. Each batch of unread messages is one
// turn; when the turn ends the lead (as config.json names it) gets an idle notice carrying the
// turn's last words. It ends when it approves a shutdown request, when its team is deleted, or on
// a signal. What it says is printed to stdout for a person watching its pane.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TEAM_TASK_TOOLS } from '../../tools/teamTasks.js';
import { createSession } from '../app/createSession.js';
import type { CliOptions } from '../cli/options.js';
import type { StdoutWriter } from '../protocol/writer.js';
import { isErrorResult, type TurnResult } from '../session/events.js';
import { StartupError } from '../session/guards.js';
import { Mailbox } from '../teams/mailbox.js';
import { idleNotice, inboxTurn } from '../teams/messages.js';
import { createLeadRelay } from '../teams/permissionRelay.js';
import { ProcessTeam } from '../teams/processTeam.js';
import { TaskListStore, teamTasksDir } from '../teams/taskList.js';
import { leadNameOf, readTeamFile, teamDirName, teamsDir } from '../teams/teamConfig.js';
import type { TeammateIdentity } from '../teams/teammateFlags.js';
import { teammatePrompt } from '../teams/teammatePrompt.js';
import { configDir } from '../util/configDir.js';
import { logWarning } from '../util/log.js';

/** How often an idle teammate looks at its inbox (the reference's pollers use 500 ms too). */
const POLL_MS = 300;

export async function runTeammate(o: CliOptions, writer: StdoutWriter, me: TeammateIdentity): Promise<number> {
  const env = process.env;
  const teamDir = join(teamsDir(env), teamDirName(me.team));
  let lead: string;
  try {
    lead = leadNameOf(readTeamFile(teamDir));
  } catch (err) {
    throw new StartupError(
      `teammate ${me.agentId}: ${(err as Error).message} (the lead makes the team before it starts teammates)`,
      2,
    );
  }
  const problem = (text: string) => logWarning(`teammate ${me.name}: ${text}`);
  const mailbox = new Mailbox({ teamDir, onProblem: problem });
  let approved = false;
  const team = new ProcessTeam({ me, teamDir, mailbox, onShutdownApproved: () => (approved = true) });
  const taskList = new TaskListStore(teamTasksDir(configDir(env), me.team), problem);
  // Its permission questions and plan approvals are the lead's to answer (through the inboxes).
  const relay = createLeadRelay({ mailbox, me, lead: () => team.lead, onProblem: problem });

  let onResult: ((r: TurnResult) => void) | null = null;
  const session = await createSession(
    {
      ...o,
      appendSystemPrompt: [o.appendSystemPrompt, teammatePrompt(me, lead)].filter(Boolean).join('\n\n'),
      // A custom agent type is this process's main agent (its prompt, tools and model).
      ...(me.agentType !== 'general-purpose' && o.agent === undefined ? { agent: me.agentType } : {}),
    },
    {
      writer,
      output: async (ev) => {
        if (ev.type !== 'result') return;
        const text = ev.result.outcome.resultText.trim();
        if (text) await writer.sendRaw(`[${me.name}] ${text}\n`);
        onResult?.(ev.result);
      },
      teammate: { tools: TEAM_TASK_TOOLS, services: { team, teamMember: me.name, taskList } },
      askHost: relay.ask,
    },
  );
  const { runner } = session;
  session.channel.close(`teammate ${me.name} has no host: its lead talks to it through its inbox`);
  const running = runner.run();
  logWarning(`teammate ${me.agentId} serving ${mailbox.path(me.name)} (lead: ${lead})`);

  for (;;) {
    if (approved) break;
    if (!existsSync(join(teamDir, 'config.json'))) {
      problem('its team was deleted; it stops');
      break;
    }
    let mail: Awaited<ReturnType<Mailbox['takeUnread']>> = [];
    try {
      if (mailbox.hasUnreadSafe(me.name)) mail = (await mailbox.takeUnread(me.name)).filter((m) => !relay.absorbs(m));
    } catch (err) {
      problem(`cannot read its inbox: ${(err as Error).message}`);
    }
    if (!mail.length) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      continue;
    }
    const result = new Promise<TurnResult>((resolve) => (onResult = resolve));
    runner.submit(inboxTurn(mail));
    const r = await result;
    onResult = null;
    if (approved) break;
    // The turn is over: the lead hears of it, with its last words (lost if it is not told).
    try {
      await mailbox.deliver(team.lead, {
        from: me.name,
        text: idleNotice(me.name, { ok: !isErrorResult(r), text: r.outcome.resultText }),
        ...(me.color ? { color: me.color } : {}),
      });
    } catch (err) {
      problem(`could not tell the lead it is idle: ${(err as Error).message}`);
    }
  }
  runner.endInput();
  await running;
  await session.close('other');
  await writer.flush();
  return 0;
}
