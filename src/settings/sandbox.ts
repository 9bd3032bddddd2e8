// The `sandbox` settings key (the SDK's SandboxSettings). Only the keys the sandbox acts on are
// accepted; any other key under `sandbox` is an error when the sandbox is enabled (see
// unsupportedSandboxKeys), so a restriction a user wrote is never silently dropped.
import { z } from 'zod';

const stringList = z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' });
const bool = z.boolean({ error: 'must be true or false' });
const port = z.number({ error: 'must be a port number' }).int({ error: 'must be a port number' }).min(1).max(65535);

export const sandboxNetworkSchema = z.looseObject(
  {
    allowedDomains: stringList.optional(),
    deniedDomains: stringList.optional(),
    allowUnixSockets: stringList.optional(),
    allowAllUnixSockets: bool.optional(),
    allowLocalBinding: bool.optional(),
    allowMachLookup: stringList.optional(),
    httpProxyPort: port.optional(),
    socksProxyPort: port.optional(),
  },
  { error: 'must be an object' },
);

export const sandboxFilesystemSchema = z.looseObject(
  {
    allowWrite: stringList.optional(),
    denyWrite: stringList.optional(),
    denyRead: stringList.optional(),
    allowRead: stringList.optional(),
  },
  { error: 'must be an object' },
);

export const sandboxSettingsSchema = z.looseObject(
  {
    enabled: bool.optional(),
    failIfUnavailable: bool.optional(),
    autoAllowBashIfSandboxed: bool.optional(),
    allowUnsandboxedCommands: bool.optional(),
    excludedCommands: stringList.optional(),
    network: sandboxNetworkSchema.optional(),
    filesystem: sandboxFilesystemSchema.optional(),
    ignoreViolations: z
      .record(z.string(), stringList, { error: 'must be an object of command pattern → array of paths' })
      .optional(),
    enableWeakerNestedSandbox: bool.optional(),
    enableWeakerNetworkIsolation: bool.optional(),
    allowAppleEvents: bool.optional(),
    ripgrep: z
      .looseObject({ command: z.string(), args: stringList.optional() }, { error: 'must be {command, args?}' })
      .optional(),
    bwrapPath: z.string({ error: 'must be a path' }).optional(),
    socatPath: z.string({ error: 'must be a path' }).optional(),
  },
  { error: 'must be an object' },
);

export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

const KNOWN = {
  '': new Set(Object.keys(sandboxSettingsSchema.shape)),
  network: new Set(Object.keys(sandboxNetworkSchema.shape)),
  filesystem: new Set(Object.keys(sandboxFilesystemSchema.shape)),
};

/** `sandbox.*` keys this runtime does not enforce (credentials, tlsTerminate, …), dotted. */
export function unsupportedSandboxKeys(s: SandboxSettings): string[] {
  const out: string[] = [];
  for (const k of Object.keys(s)) if (!KNOWN[''].has(k)) out.push(`sandbox.${k}`);
  for (const group of ['network', 'filesystem'] as const) {
    const v = s[group];
    if (v && typeof v === 'object')
      for (const k of Object.keys(v)) if (!KNOWN[group].has(k)) out.push(`sandbox.${group}.${k}`);
  }
  return out;
}
