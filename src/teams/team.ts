// The session's team: at most one at a time, either made with TeamCreate (agent teams spelling)
// or implicitly by the first Task/Agent call that names its agent. It owns the team directory
// (config.json, inboxes/), spawns teammates (same loop, same pipeline, their own conversations),
// routes SendMessage, and tells the session runner what it needs after a result: the lead's
// unread mail, whether a teammate is live or working, and how to end them.
import { randomHex } from '../util/ids.js';
import { existsSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolContext, ToolResult } from '../../tools/tool.js';
import { ToolError } from '../../tools/tool.js';
import type { SubagentRequest } from '../../tools/task.js';
import { TEAM_LEAD, type AgentView, type OutgoingMessage, type TeamToolService } from '../../tools/teamService.js';
import type { SubagentRunner } from '../agents/subagentRunner.js';
import type { LoopEvent } from '../loop/events.js';
import type { TaskRecord, TaskRegistry } from '../tasks/registry.js';
import { Mailbox } from './mailbox.js';
import { inboxTurn, shutdownAnswer, shutdownRequest, teammateMessage } from './messages.js';
import {
  LEAD_NAME,
  leadMember,
  leadNameOf,
  teamDirName,
  teamsDir,
  writeTeamConfig,
  type TeamConfigFile,
} from './teamConfig.js';
import { Teammate } from './teammate.js';
import { ProcessTeammate } from './processTeammate.js';
import { PermissionDesk, type TeammateQuestionAnswerer } from './permissionDesk.js';
import type { TeammateLaunch } from './teammateLaunch.js';
import { ENV_FILE_VAR, writeTeammateEnv } from './paneEnv.js';
import type { InboxMessage } from './mailbox.js';
import type { TeamEvent, TeamHost } from './teamHost.js';
import { ChangeSignal } from '../util/changeSignal.js';
import { withTimeout } from '../util/withTimeout.js';
import { logWarning } from '../util/log.js';

/** Tools a teammate never gets: no nested teams, no spawning. */
const LEAD_ONLY_TOOLS = new Set(['Task', 'Agent', 'TeamCreate', 'TeamDelete']);
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface TeamServiceDeps {
  sessionId: string;
  /** The lead's directory (its entry in the team file). */
  cwd: string;
  env: NodeJS.ProcessEnv;
  registry: TaskRegistry;
  subagents: SubagentRunner;
  /** A team event for the host (the session adds the envelope). */
  emit: (event: TeamEvent) => void | Promise<void>;
  emitEvent: (ev: LoopEvent) => void | Promise<void>;
  /** Teammate mode tmux or detached: each teammate is its own process. Absent: in-process. */
  processTeammates?: TeammateLaunch;
  /** The host's agents (initialize.agents), handed to each process teammate with its environment. */
  hostAgents?: () => Record<string, unknown> | undefined;
  /** How the lead answers its process teammates' permission questions (as its own: src/app/teammateQuestions.ts). */
  answerTeammateQuestions: TeammateQuestionAnswerer;
}

/** A member as the lead keeps it: in this process, or a process of its own (a tmux pane, detached). */
type Member = Teammate | ProcessTeammate;

interface ActiveTeam {
  name: string;
  dir: string;
  mailbox: Mailbox;
  config: TeamConfigFile;
}

export class TeamService implements TeamToolService, TeamHost {
  private team: ActiveTeam | null = null;
  private readonly members = new Map<string, Member>();
  private readonly change = new ChangeSignal();
  private configProblemTold = false;
  private readonly toldProblems = new Set<string>();
  /** Teammates that approved a shutdown: name → request id, told to the lead once they stop. */
  private readonly approvals = new Map<string, string>();
  /** Process teammates' permission questions, answered as the lead's own (permissionDesk.ts). */
  private desk: PermissionDesk | null = null;

  constructor(private readonly deps: TeamServiceDeps) {}

  /** The desk of the team's inbox, looking for questions once a process teammate is started. */
  private questionDesk(team: ActiveTeam): PermissionDesk {
    this.desk ??= new PermissionDesk({
      mailbox: team.mailbox,
      lead: this.lead,
      team: team.name,
      isProcessTeammate: (name) => {
        const m = this.members.get(name);
        return m !== undefined && !(m instanceof Teammate) && m.live;
      },
      answerer: () => this.deps.answerTeammateQuestions,
      onProblem: (t) => this.problem(t),
    });
    return this.desk;
  }

  // ---- tools ----

  async create(caller: string, teamName: string, description?: string): Promise<ToolResult> {
    this.leadOnly(caller, 'TeamCreate');
    if (this.team)
      throw new ToolError(
        `Already leading team "${this.team.name}". A session leads one team at a time: TeamDelete it first.`,
      );
    if (!NAME_RE.test(teamName))
      throw new ToolError(`Team name "${teamName}" is not usable: letters, digits, ".", "_" and "-" only (at most 64)`);
    const dir = join(teamsDir(this.deps.env), teamDirName(teamName));
    if (existsSync(join(dir, 'config.json')))
      throw new ToolError(`A team named "${teamName}" already exists (${dir}). Choose another name.`);
    const team = this.open(teamName, dir, description);
    const data = {
      team_name: team.name,
      team_file_path: join(dir, 'config.json'),
      lead_agent_id: team.config.leadAgentId,
    };
    return {
      content: `Team "${team.name}" created. You lead it as "${LEAD_NAME}". Spawn teammates with the Agent tool (name + team_name: "${team.name}").`,
      data,
    };
  }

  async delete(caller: string): Promise<ToolResult> {
    this.leadOnly(caller, 'TeamDelete');
    const team = this.team;
    if (!team) throw new ToolError('There is no team to delete');
    const live = [...this.members.values()].filter((m) => m.live);
    if (live.length)
      throw new ToolError(
        `Cannot delete team "${team.name}": ${live.length} teammate(s) still live (${live.map((m) => `${m.name}: ${m.status}`).join(', ')}). ` +
          'Ask each to shut down (SendMessage type shutdown_request), wait for the approvals, then call TeamDelete again.',
      );
    rmSync(team.dir, { recursive: true, force: true });
    this.desk?.stop();
    this.desk = null;
    this.team = null;
    this.members.clear();
    this.changed();
    return {
      content: `Team "${team.name}" deleted (its directory and mailboxes removed).`,
      data: { success: true, team_name: team.name },
    };
  }

  list(): { teamName: string | null; agents: AgentView[] } {
    const agents = [...this.members.values()]
      .filter((m) => m.live)
      .map((m) => ({
        name: m.name,
        agentId: m.task.id,
        agentType: m.agentType,
        status: m.status,
        lastActivity: new Date(m.lastActivity).toISOString(),
      }));
    return { teamName: this.team?.name ?? null, agents };
  }

  async spawn(req: SubagentRequest & { name: string; teamName?: string }, ctx: ToolContext): Promise<ToolResult> {
    const { name } = req;
    if (!NAME_RE.test(name) || name === LEAD_NAME)
      throw new ToolError(
        `Agent name "${name}" is not usable: letters, digits, ".", "_" and "-" (at most 64), and not "${LEAD_NAME}"`,
      );
    if (this.members.get(name)?.live)
      throw new ToolError(
        `An agent named "${name}" is already live in this team; pick another name or message it with SendMessage`,
      );
    if (req.teamName && this.team && req.teamName !== this.team.name)
      throw new ToolError(`Team "${req.teamName}" is not the team you lead ("${this.team.name}")`);
    const team =
      this.team ?? this.open(req.teamName ?? `session-${this.deps.sessionId.slice(0, 8)}`, undefined, undefined);
    if (this.deps.processTeammates) return this.spawnProcess(req, ctx, team, this.deps.processTeammates);
    const registry = this.deps.registry;
    const rec = registry.register('in_process_teammate', {
      description: req.description,
      toolUseId: ctx.toolUseId,
      subagentType: req.subagentType,
      name,
      fileName: (id) => `agent-${id}.jsonl`,
    });
    let teammate: Teammate;
    try {
      // A subagent made a teammate: no lead-only tools; its tools know who calls (SendMessage's
      // sender) and reach this team.
      const p = this.deps.subagents.prepare(req, ctx, {
        signal: rec.abort.signal,
        agentId: rec.id,
        transcriptPath: this.deps.subagents.transcriptPath(rec.id),
        member: { team: this, name, withoutTools: LEAD_ONLY_TOOLS },
      });
      // The task's output file is its transcript, kept with the session's other subagents.
      symlinkSync(p.transcriptPath, rec.outputFile);
      teammate = new Teammate(
        name,
        req.subagentType,
        rec,
        p,
        this.deps.subagents.openTranscript(p, team.name),
        teammateMessage(this.lead, req.prompt, req.description),
        {
          mailbox: team.mailbox,
          registry,
          emitEvent: this.deps.emitEvent,
          onChange: (t) => this.memberChanged(t),
          onProblem: (t) => this.problem(t),
          teamName: team.name,
          leadName: this.lead,
        },
      );
    } catch (err) {
      registry.finish(rec.id, { status: 'failed', summary: (err as Error).message });
      throw err;
    }
    this.members.set(name, teammate);
    this.memberChanged();
    return spawnedResult(req, team.name, rec, 'is now running in the background');
  }

  async send(caller: string, msg: OutgoingMessage): Promise<ToolResult> {
    const team = this.team;
    if (!team) throw new ToolError('There is no team yet: spawn a teammate first (Agent with a name)');
    const deliver = async (to: string, text: string, summary?: string) => {
      try {
        await team.mailbox.deliver(to, { from: caller, text, ...(summary ? { summary } : {}) });
      } catch (err) {
        throw new ToolError(`The message to "${to}" was not delivered: ${(err as Error).message}`);
      }
    };
    switch (msg.kind) {
      case 'message': {
        const to = this.recipient(caller, msg.to);
        await deliver(to, msg.text, msg.summary);
        const message = `Message sent to ${to}'s inbox`;
        return {
          content: message,
          data: {
            success: true,
            message,
            routing: { sender: caller, target: to, summary: msg.summary, content: msg.text },
          },
        };
      }
      case 'broadcast': {
        const targets = [...this.members.values()].filter((m) => m.live && m.name !== caller).map((m) => m.name);
        if (caller !== this.lead) targets.unshift(this.lead);
        if (!targets.length) throw new ToolError('Nobody to broadcast to: no other agent of the team is live');
        for (const to of targets) await deliver(to, msg.text, msg.summary);
        const message = `Message broadcast to ${targets.length} agent(s): ${targets.join(', ')}`;
        return { content: message, data: { success: true, message, recipients: targets } };
      }
      case 'shutdown_request': {
        this.leadOnly(caller, 'A shutdown_request');
        const to = this.recipient(caller, msg.to);
        const requestId = `shutdown-${randomHex(4)}@${to}`;
        await deliver(to, shutdownRequest(caller, requestId, msg.reason), 'shutdown request');
        const message = `Shutdown request sent to ${to} (request_id ${requestId}). It answers with a shutdown_response once it has wrapped up.`;
        return { content: message, data: { success: true, message, request_id: requestId, target: to } };
      }
      case 'shutdown_response': {
        const me = this.members.get(caller);
        if (!me) throw new ToolError('Only a teammate answers a shutdown request');
        if (!msg.approve && !msg.reason) throw new ToolError('Refusing a shutdown needs a reason (content / reason)');
        if (msg.approve) {
          // The lead hears of it once the teammate has really stopped (see memberChanged), so a
          // TeamDelete it makes on that news finds no live member.
          me.shutdownApproved = true;
          this.approvals.set(caller, msg.requestId);
        } else await deliver(this.lead, shutdownAnswer(caller, msg.requestId, false, msg.reason), 'shutdown refused');
        const message = msg.approve
          ? 'Shutdown approved: you stop once this turn is over.'
          : 'Shutdown refused; the lead was told why. Carry on.';
        return { content: message, data: { success: true, message, request_id: msg.requestId, approve: msg.approve } };
      }
      case 'plan_approval_response': {
        this.leadOnly(caller, 'A plan_approval_response');
        const to = this.recipient(caller, msg.to);
        const text = JSON.stringify({
          type: 'plan_approval_response',
          requestId: msg.requestId,
          approve: msg.approve,
          ...(msg.feedback ? { feedback: msg.feedback } : {}),
        });
        await deliver(to, text, msg.approve ? 'plan approved' : 'plan rejected');
        const message = `Plan ${msg.approve ? 'approval' : 'rejection'} sent to ${to}`;
        return { content: message, data: { success: true, message, request_id: msg.requestId } };
      }
    }
  }

  /**
   * Teammate mode tmux or detached: the teammate is `agent` started with the teammate flags, in a
   * new pane or as a detached process (the starter is all that differs).
   */
  private async spawnProcess(
    req: SubagentRequest & { name: string },
    ctx: ToolContext,
    team: ActiveTeam,
    launch: TeammateLaunch,
  ): Promise<ToolResult> {
    const { name } = req;
    const { starter } = launch;
    const mode = starter.backendType;
    if (req.isolation)
      throw new ToolError(
        `isolation "${req.isolation}" is not available for a teammate that is its own process (teammate mode ${mode}); leave it out`,
      );
    const agentId = `${name}@${team.name}`;
    const registry = this.deps.registry;
    const logFile = join(team.dir, `${name}.log`);
    const rec = registry.register('in_process_teammate', {
      description: req.description,
      toolUseId: ctx.toolUseId,
      subagentType: req.subagentType,
      name,
      // A detached teammate's log is its task's output.
      ...(starter.logs ? { outputFile: logFile } : {}),
    });
    const envFile = join(team.dir, `.${name}.env.json`);
    let proc: ProcessTeammate['proc'];
    try {
      // Its first work waits in its inbox before it starts, as for any process teammate.
      await team.mailbox.deliver(name, { from: this.lead, text: req.prompt, summary: req.description });
      writeTeammateEnv(envFile, launch.env, this.deps.hostAgents?.());
      const argv = [
        ...launch.command,
        ...['--teammate-mode', mode, '--agent-id', agentId, '--agent-name', name, '--team-name', team.name],
        ...['--agent-type', req.subagentType, '--parent-session-id', this.deps.sessionId],
        ...launch.leadArgs,
        // The Task call's own model and turn limit win over the lead's.
        ...(req.model ? ['--model', req.model] : []),
        ...(req.maxTurns !== undefined ? ['--max-turns', String(req.maxTurns)] : []),
      ];
      proc = starter.start(argv, { cwd: this.deps.cwd, env: { [ENV_FILE_VAR]: envFile }, title: agentId, logFile });
    } catch (err) {
      rmSync(envFile, { force: true });
      const why = `Teammate "${name}" could not be started (teammate mode ${mode}): ${(err as Error).message}`;
      registry.finish(rec.id, { status: 'failed', summary: why });
      throw new ToolError(why);
    }
    this.questionDesk(team).start();
    const teammate = new ProcessTeammate(name, req.subagentType, rec, proc, {
      starter,
      registry,
      envFile,
      onChange: (t) => this.memberChanged(t),
      approvedInInbox: () => this.approvedInInbox(name),
    });
    this.members.set(name, teammate);
    this.memberChanged();
    const pane: Record<string, string> = proc.paneId ? { tmux_pane_id: proc.paneId } : {};
    return spawnedResult(req, team.name, rec, `runs as its own ${starter.where(proc)}`, pane);
  }

  /** A process teammate's news the lead has just read: its idle notice, its shutdown approval. */
  private async notePaneMail(mail: InboxMessage[]): Promise<void> {
    const stopping: Promise<void>[] = [];
    for (const msg of mail) {
      const m = this.members.get(msg.from);
      if (!(m instanceof ProcessTeammate)) continue;
      const notice = parseNotice(msg.text);
      if (notice?.type === 'idle_notification')
        m.markIdle(typeof notice.result === 'string' ? notice.result : undefined);
      if (notice?.type === 'shutdown_approved') {
        m.approvedShutdown();
        stopping.push(m.finished);
      }
    }
    // An approval is read once its process is gone, so a TeamDelete made on it finds no live member.
    // (It is ended after 3 s if it has not gone; SIGTERM then has 3 s more.)
    if (stopping.length) await withTimeout(Promise.all(stopping), 7000);
  }

  /** Whether `name` sent the lead a shutdown approval (read or not). */
  private approvedInInbox(name: string): boolean {
    try {
      return (this.team?.mailbox.all(this.lead) ?? []).some(
        (m) => m.from === name && parseNotice(m.text)?.type === 'shutdown_approved',
      );
    } catch {
      return false;
    }
  }

  // ---- the runner's side ----

  async takeLeadPrompt(): Promise<string | null> {
    const team = this.team;
    if (!team?.mailbox.hasUnreadSafe(this.lead)) return null;
    try {
      // Process teammates' permission questions are answered, not read by the lead's model.
      const mail = this.desk
        ? this.desk.take(await team.mailbox.takeUnread(this.lead))
        : await team.mailbox.takeUnread(this.lead);
      await this.notePaneMail(mail);
      return mail.length ? inboxTurn(mail) : null;
    } catch (err) {
      this.problem(`cannot read the lead's inbox: ${(err as Error).message}`);
      return null;
    }
  }

  live(): boolean {
    for (const m of this.members.values()) if (m.live) return true;
    return false;
  }

  working(): boolean {
    for (const m of this.members.values()) if (m.busy) return true;
    return false;
  }

  waitForChange(ms: number): Promise<void> {
    return this.change.wait(ms);
  }

  async stopWorking(reason: string): Promise<void> {
    const busy = [...this.members.values()].filter((m) => m.busy);
    for (const m of busy) m.stopReason = reason;
    await Promise.all(busy.map((m) => this.deps.registry.stop(m.task.id, 3000)));
  }

  async endIdle(): Promise<void> {
    const idle = [...this.members.values()].filter((m) => m.live);
    for (const m of idle) {
      // Its work was already reported (idle notice): its end needs no turn of the lead.
      this.deps.registry.markSeen(m.task.id);
      m.endIfIdle();
    }
    await withTimeout(Promise.all(idle.map((m) => m.finished)), 3000);
  }

  // ---- inside ----

  /** The lead's name, as the team file says (this runtime's own teams say "team-lead"). */
  private get lead(): string {
    return this.team ? leadNameOf(this.team.config) : LEAD_NAME;
  }

  private leadOnly(caller: string, what: string): void {
    if (caller !== this.lead) throw new ToolError(`${what} is for the team lead only`);
  }

  /** A live recipient's name (or the lead), else an error naming who can be addressed. */
  private recipient(caller: string, to: string): string {
    if (to === caller) throw new ToolError('You cannot send a message to yourself');
    if (to === this.lead || to === TEAM_LEAD) return this.lead;
    const m = this.members.get(to);
    if (m?.live) return to;
    const live = [...this.members.values()].filter((x) => x.live).map((x) => x.name);
    const why = m ? `"${to}" has ended (${m.status})` : `no agent named "${to}"`;
    throw new ToolError(
      `Cannot send: ${why}. Live agents: ${live.length ? live.join(', ') : 'none'}; the lead is "${this.lead}".`,
    );
  }

  private open(name: string, dir: string | undefined, description: string | undefined): ActiveTeam {
    const teamDir = dir ?? join(teamsDir(this.deps.env), teamDirName(name));
    const mailbox = new Mailbox({
      teamDir,
      onProblem: (t) => this.problem(t),
      onDelivered: (to) => {
        this.members.get(to)?.notify();
        if (to === this.lead) this.changed();
      },
    });
    const config: TeamConfigFile = {
      name,
      ...(description ? { description } : {}),
      createdAt: Date.now(),
      leadAgentId: `${LEAD_NAME}@${name}`,
      leadSessionId: this.deps.sessionId,
      members: [],
    };
    this.team = { name, dir: teamDir, mailbox, config };
    this.writeConfig();
    return this.team;
  }

  private memberChanged(t?: Member): void {
    const approved = t && !t.live ? this.approvals.get(t.name) : undefined;
    if (t && approved !== undefined) {
      this.approvals.delete(t.name);
      this.team?.mailbox
        .deliver(this.lead, {
          from: t.name,
          text: shutdownAnswer(t.name, approved, true),
          summary: 'shutdown approved',
        })
        .catch((err) => this.problem(`could not tell the lead that ${t.name} shut down: ${(err as Error).message}`));
    }
    this.writeConfig();
    this.changed();
  }

  private writeConfig(): void {
    const team = this.team;
    if (!team) return;
    team.config.members = [
      leadMember(this.lead, team.name, this.deps.cwd, team.config.createdAt),
      ...[...this.members.values()].map((m) => ({
        name: m.name,
        agentId: `${m.name}@${team.name}`,
        agentType: m.agentType,
        status: m.status,
        toolUseId: m.task.toolUseId,
        joinedAt: m.task.startedAt,
        lastActivity: m.lastActivity,
        // The reference's fields for a pane member: the lead and tools find its pane by them. A
        // detached one has no pane ("", as the reference writes before a pane exists).
        ...(m instanceof ProcessTeammate ? { tmuxPaneId: m.proc.paneId ?? '', backendType: m.backendType } : {}),
      })),
    ];
    try {
      writeTeamConfig(team.dir, team.config);
    } catch (err) {
      if (!this.configProblemTold) this.problem(`cannot write the team file in ${team.dir}: ${(err as Error).message}`);
      this.configProblemTold = true;
    }
  }

  private problem(text: string): void {
    // Told once: a fault that lasts (an inbox that cannot be read) is not repeated every poll.
    if (this.toldProblems.has(text)) return;
    this.toldProblems.add(text);
    logWarning(`${text}`);
    void this.deps.emit({ kind: 'problem', message: text });
  }

  private changed(): void {
    this.change.notify();
  }
}

/** The Task call's result for a spawned teammate: `where` says how it runs; `extra` adds fields (its pane). */
function spawnedResult(
  req: SubagentRequest & { name: string },
  team: string,
  rec: TaskRecord,
  where: string,
  extra: Record<string, string> = {},
): ToolResult {
  const { name } = req;
  const agentId = `${name}@${team}`;
  const lines = Object.entries(extra)
    .map(([k, v]) => `${k}: ${v}\n`)
    .join('');
  return {
    content:
      `Spawned successfully.\nagent_id: ${agentId}\nname: ${name}\nteam_name: ${team}\ntask_id: ${rec.id}\n${lines}` +
      `The agent ${where} and receives instructions through its mailbox. What it sends you arrives as a <teammate-message> turn (also after you have answered). Talk to it with SendMessage {to: "${name}"}; stop it with TaskStop.`,
    data: {
      status: 'teammate_spawned',
      agent_id: agentId,
      name,
      team_name: team,
      task_id: rec.id,
      agent_type: req.subagentType,
      description: req.description,
      prompt: req.prompt,
      ...extra,
      outputFile: rec.outputFile,
    },
  };
}

/** The structured notice a message's text carries (JSON with a `type`), if any. */
function parseNotice(text: string): { type?: unknown; result?: unknown } | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' ? v : undefined;
  } catch {
    return undefined;
  }
}
