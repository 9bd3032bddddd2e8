// The settings file, as zod sees it. Only the keys we act on are checked; every other key is
// kept as written (loose objects), so a newer reference setting never breaks a run.
import { z } from 'zod';
import { PERMISSION_MODES } from '../permissions/modes.js';
import { sandboxSettingsSchema } from './sandbox.js';

const stringList = z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' });

export const commandHookSchema = z
  .looseObject({
    // Other types (`prompt`, `agent`) are kept but not run: the hook runner warns about them.
    type: z.string({ error: 'must be a string such as "command"' }),
    command: z.string({ error: 'must be a string (the shell command to run)' }).optional(),
    /** Seconds; the hook is killed after it. */
    timeout: z
      .number({ error: 'must be a number of seconds' })
      .positive({ error: 'must be a positive number of seconds' })
      .optional(),
    /** Run without waiting for it (fire and forget, still bounded by its timeout). */
    async: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .superRefine((h, ctx) => {
    if (h.type === 'command' && (h.command === undefined || h.command.trim() === '')) {
      ctx.addIssue({
        code: 'custom',
        path: ['command'],
        message: 'must be a non-empty string (the shell command to run)',
      });
    }
  });

export const hookMatcherSchema = z.looseObject({
  matcher: z.string({ error: 'must be a string (a regex against the tool name)' }).optional(),
  hooks: z.array(commandHookSchema, { error: 'must be an array of hook commands' }),
});

export const hooksSettingsSchema = z.record(
  z.string(),
  z.array(hookMatcherSchema, { error: 'must be an array of {matcher, hooks}' }),
  {
    error: 'must be an object of event name → matchers',
  },
);

export const permissionsSettingsSchema = z.looseObject(
  {
    allow: stringList.optional(),
    deny: stringList.optional(),
    ask: stringList.optional(),
    defaultMode: z.enum(PERMISSION_MODES, { error: `must be one of: ${PERMISSION_MODES.join(', ')}` }).optional(),
    additionalDirectories: stringList.optional(),
  },
  { error: 'must be an object' },
);

export const settingsSchema = z.looseObject(
  {
    permissions: permissionsSettingsSchema.optional(),
    hooks: hooksSettingsSchema.optional(),
    sandbox: sandboxSettingsSchema.optional(),
    /** MCP servers of this file, `{name: config}` in the .mcp.json shape (src/mcp/sources.ts). */
    mcpServers: z.record(z.string(), z.unknown(), { error: 'must be an object of server name → config' }).optional(),
    /** Approval of the project's servers (.mcp.json); not read from project settings. */
    enableAllProjectMcpServers: z.boolean({ error: 'must be true or false' }).optional(),
    enabledMcpjsonServers: stringList.optional(),
    disabledMcpjsonServers: stringList.optional(),
    /** Persistent memory on or off (src/prompt/autoMemory.ts); CLAUDE_CODE_DISABLE_AUTO_MEMORY wins over it. */
    autoMemoryEnabled: z.boolean({ error: 'must be true or false' }).optional(),
    /** Where the memory folder is (`~/` expanded); not read from the project's checked-in settings file. */
    autoMemoryDirectory: z.string({ error: 'must be a path' }).optional(),
    /** Shell commands whose stdout is a credential (SessionConfig.auth: src/loop/providers/authSettings.ts). */
    apiKeyHelper: z.string({ error: 'must be a string (a shell command that prints the API key)' }).optional(),
    awsAuthRefresh: z.string({ error: 'must be a string (a shell command that refreshes AWS credentials)' }).optional(),
    awsCredentialExport: z
      .string({ error: 'must be a string (a shell command that prints AWS credentials as JSON)' })
      .optional(),
    gcpAuthRefresh: z
      .string({ error: 'must be a string (a shell command that refreshes Google credentials)' })
      .optional(),
    /** A shell command printing a JSON object of headers for the telemetry exports (src/telemetry/). */
    otelHeadersHelper: z
      .string({ error: 'must be a string (a shell command that prints a JSON object of headers)' })
      .optional(),
    /** The Workflow tool is offered (src/workflows/optIn.ts); `disableWorkflows` wins. */
    enableWorkflows: z.boolean({ error: 'must be true or false' }).optional(),
    disableWorkflows: z.boolean({ error: 'must be true or false' }).optional(),
    /** Where the lead's teammates run (src/teams/teammateMode.ts); `--teammate-mode` wins. `detached` is ours. */
    teammateMode: z
      .enum(['auto', 'tmux', 'in-process', 'iterm2', 'detached'], {
        error: 'must be one of auto, tmux, in-process, iterm2, detached',
      })
      .optional(),
    /** Set in the session's environment (and so its children's) at start. */
    env: z
      .record(z.string(), z.string({ error: 'must be a string (every env value is a string)' }), {
        error: 'must be an object of NAME → string',
      })
      .optional(),
  },
  { error: 'must be a JSON object' },
);

export type Settings = z.infer<typeof settingsSchema>;
export type HooksSettings = z.infer<typeof hooksSettingsSchema>;
export type HookMatcherConfig = z.infer<typeof hookMatcherSchema>;
export type CommandHookConfig = z.infer<typeof commandHookSchema>;
export type PermissionsSettings = z.infer<typeof permissionsSettingsSchema>;
