// The flags a program starts a teammate process with (the reference's spelling, as
// claude-code-controller passes them): `--teammate-mode auto --agent-id NAME@TEAM --agent-name NAME
// --team-name TEAM --agent-type TYPE --agent-color #RRGGBB --parent-session-id UUID`. With a name
// and a team the process is a teammate: no prompt, its work arrives in its inbox (src/modes/teammate.ts).
import type { Command } from 'commander';
import { z } from 'zod';
import { teammateBackend } from './teammateMode.js';

export const TEAMMATE_MODES = ['auto', 'tmux', 'in-process', 'detached'] as const;

export const teammateFlagsShape = {
  teammateMode: z
    .enum(TEAMMATE_MODES, { error: `--teammate-mode must be one of ${TEAMMATE_MODES.join(', ')}` })
    .optional(),
  agentId: z.string().min(1, '--agent-id needs NAME@TEAM').optional(),
  agentName: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, '--agent-name: letters, digits, ".", "_" and "-" only (at most 64)')
    .optional(),
  teamName: z.string().min(1, '--team-name needs a name').optional(),
  agentType: z.string().min(1, '--agent-type needs an agent type').optional(),
  agentColor: z.string().min(1, '--agent-color needs a colour').optional(),
  parentSessionId: z.string().min(1, '--parent-session-id needs a session id').optional(),
};

export function addTeammateOptions(program: Command): void {
  program
    .option('--teammate-mode <mode>', 'how teammates run: auto | tmux | in-process | detached')
    .option('--agent-id <id>', 'as a teammate process: its id, NAME@TEAM')
    .option('--agent-name <name>', 'as a teammate process: its name in the team')
    .option('--team-name <team>', 'as a teammate process: the team it belongs to')
    .option('--agent-type <type>', 'as a teammate process: its agent type (default general-purpose)')
    .option('--agent-color <color>', 'as a teammate process: its colour, carried on the messages it sends')
    .option('--parent-session-id <id>', "as a teammate process: the lead's session id");
}

export interface TeammateIdentity {
  name: string;
  team: string;
  agentId: string;
  agentType: string;
  color?: string;
  parentSessionId?: string;
}

type Flags = { [K in keyof typeof teammateFlagsShape]?: z.infer<(typeof teammateFlagsShape)[K]> } & {
  prompt?: string;
  print?: boolean;
  inputFormat?: string;
};

/**
 * The teammate this process is, or undefined for an ordinary session. Throws (a usage error) when
 * the identity flags are incomplete or disagree, or come with a prompt or a host protocol.
 */
export function teammateIdentity(o: Flags, env: NodeJS.ProcessEnv = process.env): TeammateIdentity | undefined {
  const identityFlags = {
    agentId: '--agent-id',
    agentType: '--agent-type',
    agentColor: '--agent-color',
    parentSessionId: '--parent-session-id',
  } as const;
  if (o.agentName === undefined && o.teamName === undefined) {
    const stray = Object.entries(identityFlags).find(([k]) => o[k as keyof typeof identityFlags] !== undefined);
    if (stray) throw new Error(`${stray[1]} is for a teammate process: give --agent-name and --team-name too`);
    // The lead's own teammates: in-process, a tmux pane each (refused outside tmux), or detached.
    teammateBackend(o.teammateMode, env);
    return undefined;
  }
  if (o.agentName === undefined || o.teamName === undefined)
    throw new Error('a teammate process needs both --agent-name and --team-name');
  const agentId = `${o.agentName}@${o.teamName}`;
  if (o.agentId !== undefined && o.agentId !== agentId)
    throw new Error(`--agent-id "${o.agentId}" does not match --agent-name and --team-name (expected "${agentId}")`);
  if (o.prompt !== undefined || o.print)
    throw new Error('a teammate process takes no prompt: its work arrives in its inbox (drop -p and the prompt)');
  if (o.inputFormat === 'stream-json')
    throw new Error('a teammate process is driven through its inbox, not stream-json input');
  return {
    name: o.agentName,
    team: o.teamName,
    agentId,
    agentType: o.agentType ?? 'general-purpose',
    ...(o.agentColor !== undefined ? { color: o.agentColor } : {}),
    ...(o.parentSessionId !== undefined ? { parentSessionId: o.parentSessionId } : {}),
  };
}
