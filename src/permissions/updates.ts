// PermissionUpdate as the SDK sends it (updatedPermissions of a can_use_tool answer) and as we
// suggest it (permission_suggestions). Field names follow sdk.d.ts exactly.
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import { permissionModeSchema } from './modes.js';

export const permissionRuleValueSchema = lazySchema(() =>
  z.object({
    toolName: z.string().min(1),
    ruleContent: z.string().optional(),
  }),
);

export const permissionUpdateDestinationSchema = lazySchema(() =>
  z.enum(['userSettings', 'projectSettings', 'localSettings', 'session', 'cliArg']),
);

const behavior = lazySchema(() => z.enum(['allow', 'deny', 'ask']));
const destination = permissionUpdateDestinationSchema;

export const permissionUpdateSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('addRules'), rules: z.array(permissionRuleValueSchema), behavior, destination }),
    z.object({ type: z.literal('replaceRules'), rules: z.array(permissionRuleValueSchema), behavior, destination }),
    z.object({ type: z.literal('removeRules'), rules: z.array(permissionRuleValueSchema), behavior, destination }),
    z.object({ type: z.literal('setMode'), mode: permissionModeSchema, destination }),
    z.object({ type: z.literal('addDirectories'), directories: z.array(z.string()), destination }),
    z.object({ type: z.literal('removeDirectories'), directories: z.array(z.string()), destination }),
  ]),
);

export type PermissionUpdate = z.infer<typeof permissionUpdateSchema>;
export type PermissionUpdateDestination = z.infer<typeof permissionUpdateDestinationSchema>;
